// `npm run keys -- …`: API keys, their roles and workspaces, on DATABASE_URL (or the embedded
// engine, while the service is not running on it). A created key is printed once and never again.

import { parseArgs } from 'node:util';
import pg from 'pg';
import { ConfigError, loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { parseId } from '../src/core/ids.ts';
import { DEFAULT_WORKSPACE_ID } from '../src/core/link.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/process/logger.ts';
import { cleanName } from '../src/core/names.ts';
import { createApiKey, createWorkspace, findWorkspace, listApiKeys, listWorkspaces, revokeApiKey, setRole } from '../src/auth/api-keys.ts';
import { isRole, ROLES } from '../src/auth/roles.ts';
import { listOperators, setOperator } from '../src/operators/operator-store.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);
const USAGE = `usage: npm run keys -- <command>
  create <name> [--role ${ROLES.join('|')}] [--workspace <name or id>]   a key (member of the default workspace unless told)
  list [--workspace <name or id>]                                    keys, their roles and workspaces; never a secret
  revoke <id>                                                        (not a workspace's last admin key)
  role <id> <${ROLES.join('|')}>
  workspaces                                                         workspaces, with their keys and links
  workspace <name>                                                   a new workspace
  operator <email> on|off                                            make a person an operator of the deployment, or not
  operators                                                          the operators (docs/operators.md)`;
const EX_USAGE = 64;

/** The workspace an option names (the default one without it); undefined, having said why, if none has that name or id. */
async function workspaceOf(db: pg.Pool, option: string | undefined): Promise<number | undefined> {
  if (option === undefined) return DEFAULT_WORKSPACE_ID;
  const workspace = await findWorkspace(db, option);
  if (workspace === undefined) console.error(`no workspace "${option}" (npm run keys -- workspaces lists them)`);
  return workspace?.id;
}

async function run(
  db: pg.Pool,
  command: string | undefined,
  args: string[],
  options: { role?: string; workspace?: string },
): Promise<number> {
  const [first, second] = args;
  const nameArg = cleanName(first);
  const idArg = parseId(first);
  if (command === 'create' && args.length === 1 && nameArg !== undefined) {
    const role = options.role ?? 'member';
    if (!isRole(role)) return usage(`--role must be one of ${ROLES.join(', ')}`);
    const workspaceId = await workspaceOf(db, options.workspace);
    if (workspaceId === undefined) return 1;
    const key = await createApiKey(db, { name: nameArg, role, workspaceId });
    print(JSON.stringify({ id: key.id, name: key.name, role: key.role, workspaceId: key.workspaceId, key: key.secret }));
    console.error('Keep this key now: it is stored only as a hash and cannot be shown again.');
    return 0;
  }
  if (command === 'list' && args.length === 0) {
    const workspaceId = options.workspace === undefined ? undefined : await workspaceOf(db, options.workspace);
    if (options.workspace !== undefined && workspaceId === undefined) return 1;
    for (const key of await listApiKeys(db, workspaceId)) {
      const { id, name, role, createdAt, revokedAt } = key;
      print(JSON.stringify({ id, name, role, workspaceId: key.workspaceId, createdAt, revokedAt }));
    }
    return 0;
  }
  if (command === 'revoke' && args.length === 1 && idArg !== undefined) {
    const outcome = await revokeApiKey(db, idArg);
    if (outcome === 'revoked') print(`key ${first} revoked (every instance refuses it, and its sessions, within 10 s)`);
    else if (outcome === 'last-admin') console.error(`key ${first} is its workspace's last admin key: create another admin key first`);
    else console.error(`no active key ${first}`);
    return outcome === 'revoked' ? 0 : 1;
  }
  if (command === 'role' && args.length === 2 && idArg !== undefined && isRole(second)) {
    const changed = await setRole(db, idArg, second);
    if (changed) print(`key ${first} is now ${second} (every instance knows within 10 s)`);
    else console.error(`no active key ${first}`);
    return changed ? 0 : 1;
  }
  if (command === 'workspaces' && args.length === 0) {
    for (const workspace of await listWorkspaces(db)) print(JSON.stringify(workspace));
    return 0;
  }
  if (command === 'workspace' && args.length === 1 && nameArg !== undefined) {
    const workspace = await createWorkspace(db, nameArg);
    if (workspace === undefined) {
      console.error(`a workspace is called "${nameArg}" already`);
      return 1;
    }
    print(JSON.stringify(workspace));
    return 0;
  }
  if (command === 'operator' && args.length === 2 && first !== undefined && (second === 'on' || second === 'off')) {
    const changed = await setOperator(db, first, second === 'on');
    if (changed) print(`${first} is ${second === 'on' ? 'now' : 'no longer'} an operator (from their next request)`);
    else console.error(`nobody has the email address ${first}`);
    return changed ? 0 : 1;
  }
  if (command === 'operators' && args.length === 0) {
    for (const person of await listOperators(db)) print(JSON.stringify(person));
    return 0;
  }
  return usage();
}

function usage(problem?: string): number {
  if (problem !== undefined) console.error(problem);
  console.error(USAGE);
  return EX_USAGE;
}

try {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { role: { type: 'string' }, workspace: { type: 'string' } },
  });
  const [command, ...args] = positionals;
  const config = loadConfig();
  const log = createLogger({ ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const database = await openDatabase(config, log);
  try {
    await migrate(database.url, log);
    const db = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      process.exitCode = await run(db, command, args, values);
    } finally {
      await db.end();
    }
  } finally {
    await database.stop();
  }
} catch (err) {
  if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
    process.exitCode = usage(err.message);
  } else {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exitCode = err instanceof ConfigError ? 78 : 1;
  }
}
