// The Node ceiling for the redirect path: a bare node:http server that answers the same codes
// from a Map with a prebuilt 302 head (and any other code with the service's 404), and nothing else. The `hot` scenario is measured against
// it; no real service can do less work per request on this runtime.
//
//   LINKS_FILE=links.json PORT=0 node load/baseline-server.ts    (links.json: [[code, url], ...])

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { errorBody, errorHeaders } from '../src/errors.ts';
import { listenAndAnnounce } from './listening.ts';

const links = JSON.parse(readFileSync(process.env.LINKS_FILE ?? '', 'utf8')) as [string, string][];
const cacheControl = process.env.REDIRECT_CACHE_CONTROL ?? 'private, max-age=90';
const heads = new Map(links.map(([code, url]) => [`/${code}`, ['location', url, 'cache-control', cacheControl, 'content-length', '0']]));
// Unknown codes get the service's own 404, byte for byte, so that the not-found runs compare alike.
const notFoundBody = errorBody('LINK_NOT_FOUND');
const notFound = [...Object.entries(errorHeaders('LINK_NOT_FOUND')).flat(), 'content-length', String(Buffer.byteLength(notFoundBody))];

const server = createServer((req, res) => {
  const head = heads.get(req.url ?? '');
  if (head === undefined) {
    res.writeHead(404, notFound);
    res.end(notFoundBody);
  } else {
    res.sendDate = false;
    res.writeHead(302, head);
    res.end();
  }
});
server.keepAliveTimeout = 72_000;
listenAndAnnounce(server);
