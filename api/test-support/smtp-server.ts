/*
 * A real SMTP server for tests (the npm smtp-server package, the server half of nodemailer's project): bpay's
 * transport talks SMTP to it over TCP exactly as to a production server. It keeps what it received and can be told
 * to refuse the next messages with a given reply (451 try later, 550 no such mailbox).
 */
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message (headers and body) as the client sent it. */
  raw: string;
}

export interface TestSmtpServer {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** The next `count` messages are answered `code message` at the end of DATA. */
  refuseNext(count: number, code: number, message?: string): void;
  /** Resolves when `n` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** The body of a received message with quoted-printable soft line breaks undone (links stay whole). */
export function plainBody(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}

export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let refusals: { count: number; code: number; message: string } | null = null;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered (nodemailer would upgrade and reject the self-signed certificate).
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onAuth(_auth, _session, cb) {
      cb(null, { user: 'test' });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusals && refusals.count > 0) {
          refusals.count--;
          const err = Object.assign(new Error(refusals.message), { responseCode: refusals.code });
          return cb(err);
        }
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        for (const w of waiters.splice(0)) {
          if (received.length >= w.n) w.resolve();
          else waiters.push(w);
        }
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    port: actualPort,
    url: `smtp://127.0.0.1:${actualPort}`,
    received,
    refuseNext(count, code, message = code >= 500 ? 'Mailbox unavailable' : 'Try again later') {
      refusals = { count, code, message };
    },
    waitFor(n, timeoutMs = 10_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${n} messages, got ${received.length}`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close() {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
