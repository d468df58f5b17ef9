import { CopyButton } from '../shared/CopyButton.tsx';
import { formatCount, formatDateTime } from '../shared/format.ts';
import type { Link } from './api.ts';
import { describeOptions } from './options/describe.ts';
import { StateBadge } from './StateBadge.tsx';
import { Tags } from './Tags.tsx';

/** What a link is: its addresses, title, tags, state, dates and creator. */
export function LinkDetails({ link }: { link: Link }) {
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
          <dt>Redirect options</dt>
          <dd id="detail-options">{describeOptions(link.options) || <span class="muted">None: a plain 302</span>}</dd>
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
          </dd>
        </div>
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
        <div>
          <dt>Expires</dt>
          <dd>
            {link.expiresAt === null ? (
              <span class="muted">Never</span>
            ) : (
              <time dateTime={link.expiresAt}>{formatDateTime(link.expiresAt)}</time>
            )}
          </dd>
        </div>
      </dl>
    </section>
  );
}
