// The redirect handler's transport on the fast path (fast-path.ts): what it reads of a request is
// the parsed head (request-head.ts), and each answer, the bytes node:http would have written
// (raw-answers.ts), goes to its connection in the order of the requests.

import { isRedirect } from '../cache/link-cache.ts';
import type { AddressOf, HostOf } from './client-address.ts';
import type { FastRequest } from './fast-path.ts';
import type { RawAnswers } from './raw-answers.ts';
import type { RedirectTransport } from './redirect-handler.ts';
import { acceptOf } from './request-head.ts';
import { ANSWERS, type Prebuilt } from './respond.ts';

/** The handler's transport on the fast path: answers go to their connection, in order. */
export function fastTransport(answers: RawAnswers, client: AddressOf, hostOf: HostOf | null) {
  const transport: RedirectTransport<FastRequest, FastRequest> = {
    writeEntry(req, entry) {
      if (!isRedirect(entry)) return transport.writePrebuilt(req, ANSWERS[entry.answer]);
      const closing = req.conn.closingAfter(req);
      req.conn.answer(req, 302, answers.redirect(entry, closing), closing);
    },
    writeRedirect(req, status, location, personal) {
      const closing = req.conn.closingAfter(req);
      req.conn.answer(req, status, answers.redirectWith(status, location, closing, personal), closing);
    },
    writePrebuilt(req, answer: Prebuilt) {
      const closing = req.conn.closingAfter(req);
      req.conn.answer(req, answer.status, answers.prebuilt(answer, req.request.head, closing), closing);
    },
    crash(req) {
      if (req.status === 0) transport.writePrebuilt(req, ANSWERS.INTERNAL);
    },
    status: (req) => req.status,
    userAgent: (req) => req.request.userAgent,
    host:
      hostOf === null
        ? (req) => req.request.host
        : (req) => hostOf(req.conn.socket.remoteAddress, req.request.host, req.request.forwardedHost),
    client: (req) => client(req.conn.socket.remoteAddress, req.request.forwardedFor),
    peer: (req) => req.conn.socket.remoteAddress,
    forwardedFor: (req) => req.request.forwardedFor,
    referer: (req) => req.request.referer,
    language: (req) => req.request.acceptLanguage,
    qr: (req) => req.request.qr,
    cookie: (req) => req.request.cookie,
    accept: (req) => acceptOf(req.request),
    query: ({ request }) => (request.queryStart === 0 ? '' : request.source.toString('latin1', request.queryStart, request.queryEnd)),
  };
  return transport;
}
