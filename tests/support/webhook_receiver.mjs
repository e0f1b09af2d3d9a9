// A webhook receiver for tests/integration/webhooks_test.cpp (interface.md
// 14.4). It verifies each delivery with the `standardwebhooks` package from
// npm (the specification's own JavaScript library: an implementation
// independent of authd's), appends one JSON line per request to --log
// (before answering), and answers with the status in --status-file, read
// afresh for each request: a number, or "hang" to never answer (until the
// client goes away). A delivery that fails verification gets 401.
//
//   node webhook_receiver.mjs --secret-file F --port-file F --log F --status-file F
import { createServer } from 'node:http';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Webhook } = require('standardwebhooks');

const options = {};
for (let i = 2; i + 1 < process.argv.length; i += 2) options[process.argv[i].slice(2)] = process.argv[i + 1];
for (const name of ['secret-file', 'port-file', 'log', 'status-file']) {
  if (!options[name]) throw new Error(`--${name} is required`);
}
const verifier = new Webhook(readFileSync(options['secret-file'], 'utf8').trim());

function wanted() {
  try {
    return readFileSync(options['status-file'], 'utf8').trim() || '204';
  } catch {
    return '204';
  }
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const record = {
      receivedAt: Date.now(),
      method: request.method,
      contentType: request.headers['content-type'] ?? null,
      id: request.headers['webhook-id'] ?? null,
      timestamp: request.headers['webhook-timestamp'] ?? null,
      signature: request.headers['webhook-signature'] ?? null,
      body,
      verified: false,
      error: null,
    };
    try {
      verifier.verify(body, request.headers);
      record.verified = true;
    } catch (error) {
      record.error = String(error.message ?? error);
    }
    const status = wanted();
    record.answer = status;
    appendFileSync(options.log, JSON.stringify(record) + '\n');
    if (status === 'hang') return; // never answered: the client gives up or dies
    response.writeHead(record.verified ? Number(status) : 401, { 'Content-Type': 'text/plain' });
    response.end('receiver says no secrets here\n');
  });
});

server.listen(0, '127.0.0.1', () => {
  const temporary = options['port-file'] + '.tmp';
  writeFileSync(temporary, `${server.address().port}\n`);
  renameSync(temporary, options['port-file']);
});
process.on('SIGTERM', () => process.exit(0));
