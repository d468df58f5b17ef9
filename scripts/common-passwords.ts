// Writes src/people/common-passwords.txt from the installed dev dependency @zxcvbn-ts/language-common:
// every entry of its ranked password list (src/passwords.json) long enough to pass the length rule, NFC
// and lower-cased, most common first, under a header naming the package, its version and its licence
// (MIT, whose notice the header carries). Run by hand after updating that package:
//   node scripts/common-passwords.ts

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { COMMON_PASSWORDS_FILE } from '../src/people/common-passwords.ts';
import { PASSWORD_MIN_LENGTH, passwordLength } from '../src/people/passwords.ts';

const PACKAGE = '@zxcvbn-ts/language-common';

function main(): void {
  const folder = dirname(createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`));
  const { version, license } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string; license: string };
  if (license !== 'MIT') throw new Error(`${PACKAGE} ${version} is under ${license}, not MIT: check it before shipping its list`);
  const ranked = JSON.parse(readFileSync(join(folder, 'src', 'passwords.json'), 'utf8')) as string[];
  const entries = [...new Set(ranked.map((entry) => entry.normalize('NFC').toLowerCase()))].filter(
    (entry) => passwordLength(entry) >= PASSWORD_MIN_LENGTH && !/\s/.test(entry),
  );
  const notice = readFileSync(join(folder, 'LICENSE.txt'), 'utf8').trim().split('\n');
  const header = [
    `Common passwords of ${PASSWORD_MIN_LENGTH} or more characters, NFC and lower-cased, most common first: every such`,
    `entry of src/passwords.json in ${PACKAGE} ${version} (${license}; its notice below), ${entries.length} of them.`,
    'Made by `node scripts/common-passwords.ts`; read by src/people/common-passwords.ts.',
    '',
    ...notice,
  ];
  const text = [...header.map((line) => (line === '' ? '#' : `# ${line}`)), ...entries, ''].join('\n');
  writeFileSync(COMMON_PASSWORDS_FILE, text);
  process.stdout.write(`${entries.length} common passwords from ${PACKAGE} ${version}\n`);
}

main();
