-- The delivery log keeps a try's status, time and a class of failure, not what the receiver said
-- (webhooks/sender.ts): the answer excerpts and error texts stored before are cut back to that.
UPDATE webhook_deliveries SET last_error = CASE
  WHEN last_error ~ '^HTTP [0-9]{3}' THEN substring(last_error FROM '^HTTP [0-9]{3}')
  WHEN last_error LIKE '%not an http(s) URL%' THEN 'invalid URL'
  WHEN last_error LIKE 'no complete answer%' THEN 'timeout (WEBHOOK_TIMEOUT_MS)'
  WHEN last_error LIKE '%ECONNREFUSED%' THEN 'connection refused'
  WHEN last_error LIKE '%ECONNRESET%' OR last_error LIKE '%socket hang up%' THEN 'connection reset'
  WHEN last_error LIKE '%ENOTFOUND%' OR last_error LIKE '%EAI_AGAIN%' OR last_error LIKE '%no public address%' THEN 'DNS lookup failed'
  WHEN last_error LIKE '%is not a public address%' THEN 'no public address (WEBHOOK_ALLOW_PRIVATE is off)'
  ELSE 'network error'
END
WHERE last_error IS NOT NULL;
