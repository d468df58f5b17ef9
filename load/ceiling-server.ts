// The load generator's own ceiling: a TCP server that answers every request it sees with a
// prebuilt 302 and does no HTTP work at all (it only counts the blank lines that end request
// heads). Whatever autocannon reaches against it is the most it can send on this machine.
//
//   PORT=0 node load/ceiling-server.ts

import { createServer } from 'node:net';
import { listenAndAnnounce } from './listening.ts';

const RESPONSE = Buffer.from('HTTP/1.1 302 Found\r\nlocation: https://shop.example.com/\r\ncontent-length: 0\r\n\r\n');
const END = Buffer.from('\r\n\r\n');

const server = createServer((socket) => {
  // A request head may be split across chunks: keep the last three bytes of the previous one.
  let tail: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    const data = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk;
    let count = 0;
    for (let at = data.indexOf(END); at !== -1; at = data.indexOf(END, at + END.length)) count++;
    tail = data.subarray(Math.max(0, data.length - 3));
    if (count === 1) socket.write(RESPONSE);
    else if (count > 1) socket.write(Buffer.concat(Array.from({ length: count }, () => RESPONSE)));
  });
  socket.on('error', () => socket.destroy());
});
listenAndAnnounce(server);
