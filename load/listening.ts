// The baseline servers announce their port with the line the service logs, so that one helper
// (test/helpers/server-process.ts) starts all of them.

import type { Server } from 'node:net';

export function listenAndAnnounce(server: Server): void {
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    console.log(JSON.stringify({ msg: `Server listening at http://127.0.0.1:${port}` }));
  });
  process.on('SIGTERM', () => process.exit(0));
}
