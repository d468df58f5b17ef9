// A link's options in plain words (web/src/links/rule-words.ts) and its state's words
// (web/src/links/link-states.ts): what the link page says instead of "Rule 1", and what analytics
// shows for a `target` value. Pure: no browser.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LinkOptions } from '../../web/src/links/api.ts';
import { clicksUsedWords, expiryWords, fromNow, startWords } from '../../web/src/links/link-states.ts';
import { audienceWords, optionSentences, routeSentences, ruleWords, targetWords } from '../../web/src/links/rule-words.ts';

const url = 'https://example.com/page';
const options: LinkOptions = {
  targets: [
    { when: { device: ['ios'] }, url: 'https://apps.apple.com/app/id42' },
    { when: { country: ['FR', 'BE'] }, url: 'https://example.com/fr' },
    { when: { language: ['de'], device: ['android', 'tablet'] }, url: 'https://example.com/de' },
  ],
  split: [
    { url: 'https://example.com/a', weight: 50 },
    { url: 'https://example.com/b', weight: 50 },
  ],
};

test('each targeting rule says who goes where; everyone else takes the split', () => {
  assert.deepEqual(routeSentences({ url, options }), [
    'Visitors on iPhone or iPad go to https://apps.apple.com/app/id42.',
    'Visitors from France or Belgium go to https://example.com/fr.',
    'Visitors on Android or a tablet whose browser prefers German go to https://example.com/de.',
    'Half of the other visitors (variant A) go to https://example.com/a.',
    'Half of the other visitors (variant B) go to https://example.com/b.',
  ]);
  assert.deepEqual(
    routeSentences({ url, options: { split: [...(options.split ?? [])].map((v, i) => ({ ...v, weight: i === 0 ? 30 : 70 })) } }),
    ['30% of visitors (variant A) go to https://example.com/a.', '70% of visitors (variant B) go to https://example.com/b.'],
  );
  assert.deepEqual(routeSentences({ url, options: { targets: options.targets ?? [] } }).at(-1), `Everyone else goes to ${url}.`);
  assert.deepEqual(routeSentences({ url, options: null }), [], 'a plain link: nothing to say');
});

test('conditions in words: several countries and languages, a query, a time window', () => {
  assert.equal(audienceWords({ country: ['DE', 'AT', 'CH'] }), 'from Germany, Austria or Switzerland');
  assert.equal(audienceWords({ language: ['pt-BR'] }), 'whose browser prefers Brazilian Portuguese');
  assert.equal(audienceWords({ query: { name: 'ref', value: 'news' } }), 'arriving with “ref=news” in the address');
  assert.equal(audienceWords({ device: ['desktop'], query: { name: 'beta' } }), 'on a computer arriving with “beta” in the address');
  assert.match(
    audienceWords({ from: '2030-01-01T10:00:00Z', until: '2030-01-02T10:00:00Z' }),
    /^between 1 Jan 2030, \d\d:\d\d and 2 Jan 2030/,
  );
  assert.equal(audienceWords({ country: ['XX'] }), 'from XX', 'a code without a name stays a code');
});

test('the other options, a sentence each', () => {
  assert.deepEqual(
    optionSentences({
      password: true,
      clickLimit: 5000,
      preview: { title: 'The app, now' },
      deepLink: { android: 'myapp://open' },
      redirectStatus: 301,
      forwardQuery: true,
    }),
    [
      'Visitors must enter a password first.',
      'Works for 5,000 clicks, then stops.',
      'Social networks and chat apps show a preview titled “The app, now”.',
      'Visitors on Android open the app first, the web page if they do not have it.',
      'Redirects permanently (301): browsers and search engines may remember the target.',
      'Anything after “?” in the short link is passed on to the target.',
    ],
  );
  assert.deepEqual(optionSentences({ clickLimit: 1, forwardQuery: false }), [
    'Works for 1 click, then stops.',
    'Anything after “?” in the short link is not passed on.',
  ]);
  assert.equal(ruleWords({ url, options: { ...options, password: true } }).length, 6, 'routes first, then the rest');
});

test('an analytics target value in the words of its rule, variant or URL', () => {
  const link = { url, options };
  assert.equal(targetWords('rule 2', link), 'Visitors from France or Belgium go to https://example.com/fr.');
  assert.equal(targetWords('variant B', link), 'Half of the other visitors (variant B) go to https://example.com/b.');
  assert.equal(targetWords('url', link), `Everyone else goes to ${url}.`);
  assert.equal(targetWords('url', { url, options: null }), `Goes to ${url}.`);
  assert.equal(targetWords('rule 9', link), 'Rule 9 (no longer on this link).');
  assert.equal(targetWords('variant C', link), 'Variant C (no longer on this link).');
  assert.equal(targetWords('other', link), 'other');
});

test('a state in words: clicks used of the limit, an expiry or a start from now', () => {
  assert.equal(clicksUsedWords({ clicksUsed: 3, options: { clickLimit: 3 } }), '3 of 3 clicks used');
  assert.equal(clicksUsedWords({ clicksUsed: 1200, options: { clickLimit: 5000 } }), '1,200 of 5,000 clicks used');
  assert.equal(clicksUsedWords({ clicksUsed: null, options: null }), undefined);
  const now = Date.parse('2030-06-10T12:00:00Z');
  assert.equal(expiryWords('2030-06-13T12:00:00Z', now), 'expires in 3 days');
  assert.equal(expiryWords('2030-06-08T12:00:00Z', now), 'expired 2 days ago');
  assert.equal(startWords('2030-06-10T14:00:00Z', now), 'starts in 2 hours');
  assert.equal(startWords('2030-06-10T11:59:30Z', now), 'started 30 seconds ago');
  assert.equal(fromNow('2030-06-11T12:00:00Z', now), 'tomorrow');
  assert.equal(fromNow('2031-06-10T12:00:00Z', now), 'next year');
});
