import { CopyButton } from '../shared/CopyButton.tsx';
import { formatCount, formatDateTime } from '../shared/format.ts';
import type { Link } from './api.ts';
import { clicksUsedWords, expiryWords, startWords } from './link-states.ts';
import { ruleWords } from './rule-words.ts';
import { StateBadge } from './StateBadge.tsx';
import { Tags } from './Tags.tsx';

/** An instant in words ("expires in 3 days"), the exact date and time beside it. */
function When({ iso, words }: { iso: string; words: string }) {
  const exact = formatDateTime(iso);
  return (
    <>
      {words[0]?.toUpperCase()}
      {words.slice(1)}{' '}
      <span class="muted">
        (<time dateTime={iso}>{exact}</time>)
      </span>
    </>
  );
}

/** What a link is: its addresses, what it does, title, tags, state, dates and creator. */
export function LinkDetails({ link }: { link: Link }) {
  const now = Date.now();
  const rules = ruleWords(link);
  const used = clicksUsedWords(link);
  return (
    <section class="panel" aria-labelledby="details-heading">
      <h2 id="details-heading" class="visually-hidden">
        Details
      </h2>
      <dl class="details">
        <div>
          <dt>Short URL</dt>
          <dd class="short-url">
            <code id="detail-short-url">{link.shortUrl}</code>
            <CopyButton text={link.shortUrl} what={`short URL ${link.shortUrl}`} sourceId="detail-short-url" />
          </dd>
        </div>
        <div>
          <dt>Target</dt>
          <dd class="break">
            <a href={link.url} rel="noopener noreferrer" target="_blank">
              {link.url}
              <span class="visually-hidden"> (opens in a new tab)</span>
            </a>
          </dd>
        </div>
        <div>
          <dt>What it does</dt>
          <dd id="detail-options">
            {rules.length === 0 ? (
              <span class="muted">Sends every visitor to the target</span>
            ) : (
              <ul class="rule-words">
                {rules.map((sentence, i) => (
                  <li key={i}>{sentence}</li>
                ))}
              </ul>
            )}
          </dd>
        </div>
        <div>
          <dt>Title</dt>
          <dd>{link.title ?? <span class="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>{link.tags.length === 0 ? <span class="muted">None</span> : <Tags tags={link.tags} />}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>
            <StateBadge state={link.state} />
            {used === undefined ? null : <span id="detail-clicks-used"> {used}</span>}
          </dd>
        </div>
        {link.safety === null ? null : (
          <div>
            <dt>Safety</dt>
            <dd id="detail-safety">
              {link.safety.action === 'blocked'
                ? `Blocked: its target is on the blocklist “${link.safety.list}”, so its visitors get a page saying so (451).`
                : `Flagged: its target is on the blocklist “${link.safety.list}”, so its visitors see a warning before they go on.`}{' '}
              Only the deployment’s operators can lift this.
            </dd>
          </div>
        )}
        <div>
          <dt>Clicks</dt>
          <dd>
            {formatCount(link.clicks)} by people, {formatCount(link.botClicks)} by bots
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={link.createdAt}>{formatDateTime(link.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Created by</dt>
          <dd>{link.creator?.name ?? <span class="muted">No key</span>}</dd>
        </div>
        {link.startsAt === null ? null : (
          <div>
            <dt>Starts</dt>
            <dd id="detail-starts">
              <When iso={link.startsAt} words={startWords(link.startsAt, now)} />
            </dd>
          </div>
        )}
        <div>
          <dt>Expires</dt>
          <dd id="detail-expires">
            {link.expiresAt === null ? (
              <span class="muted">Never</span>
            ) : (
              <When iso={link.expiresAt} words={expiryWords(link.expiresAt, now)} />
            )}
          </dd>
        </div>
        {(link.archivedAt ?? null) === null ? null : (
          <div>
            <dt>Archived</dt>
            <dd id="detail-archived">
              <time dateTime={link.archivedAt ?? ''}>{formatDateTime(link.archivedAt ?? '')}</time>: still redirects, out of the list
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}
