/*
 * The `bpay` CLI end to end: a real server on a port (the app of api/test-support/app.ts behind Bun.serve, as
 * api/src/server.ts serves it), the CLI run as a subprocess with its own HOME, and a local webhook receiver that
 * verifies what `bpay listen` forwards with the secret the listener printed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server, Subprocess } from 'bun';
import { Bpay } from '@bpay/sdk';
import { setPeerAddress } from '../../api/src/lib/request-context';
import { ADMIN_PASSWORD, codeNow, makeAdmin } from '../../api/test-support/modules/admin';
import { kycForm } from '../../api/test-support/modules/kyc';
import { call, makeTestApp, type TestContext } from '../../api/test-support/app';
import { createMerchant, registerUser } from '../../api/test-support/world';
import { resetRateWindows } from '../../api/src/modules/merchants/usage';
import { buildCli } from './build-support';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { unseal } from '../../api/src/lib/crypto';

const CLI = join(import.meta.dir, 'index.ts');
const WAIT_MS = 10_000;
/**
 * What runs `bpay`: the compiled executable, as `bun run build:cli` makes it (built into a folder of this test's own
 * in beforeAll), so every command here is checked as users run it; BPAY_CLI_FROM_SOURCE=1 runs index.ts with bun.
 */
const FROM_SOURCE = process.env.BPAY_CLI_FROM_SOURCE === '1';
let bpayCommand: string[] = ['bun', CLI];

let ctx: TestContext;
let server: Server<undefined>;
let receiverServer: Server<undefined>;
let home: string;
let baseUrl: string;
let key: string;
const listeners: Subprocess[] = [];

interface Delivery {
  raw: string;
  verified: boolean;
  event: { id: string; type: string; data: { object: Record<string, unknown> } } | null;
}
const received: Delivery[] = [];
/** The secret `bpay listen` printed; the receiver verifies with it, as the merchant's app would. */
let listenSecret = '';

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'bpay-cli-home-'));
  if (!FROM_SOURCE) {
    const out = join(home, 'bin', 'bpay');
    const build = buildCli(out);
    if (build.exitCode !== 0) throw new Error(`build:cli failed: ${build.stderr.toString()}`);
    bpayCommand = [out];
  }
  ctx = await makeTestApp();
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req, srv) {
      const ip = srv.requestIP(req);
      if (ip) setPeerAddress(req, ip.address);
      if (new URL(req.url).pathname === '/api/v1/events/stream') srv.timeout(req, 0);
      // Many CLI calls a second from one merchant: the per-second limit is not under test here.
      resetRateWindows();
      return ctx.app.handle(req);
    },
  });
  baseUrl = `http://127.0.0.1:${server.port}`;
  receiverServer = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const raw = await req.text();
      let event: Delivery['event'] = null;
      try {
        event = Bpay.webhooks.constructEvent(raw, req.headers.get('bpay-signature'), listenSecret);
      } catch {
        received.push({ raw, verified: false, event: null });
        return new Response('bad signature', { status: 400 });
      }
      // Stripe's header carries the same value, for receivers written for Stripe.
      const sameUnderStripesName = req.headers.get('stripe-signature') === req.headers.get('bpay-signature');
      received.push({ raw, verified: req.headers.get('content-type') === 'application/json' && sameUnderStripesName, event });
      return new Response('ok');
    },
  });
  const user = await registerUser(ctx);
  key = (await createMerchant(ctx, user.cookie, 'sandbox')).secretKey;
  await makeAdmin(ctx);
}, 120_000);

afterAll(async () => {
  for (const p of listeners) p.kill('SIGKILL');
  await Promise.all(listeners.map((p) => p.exited));
  server?.stop(true);
  receiverServer?.stop(true);
  ctx?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const cliEnv = (over: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'xdg'),
  BPAY_BASE_URL: baseUrl,
  NO_COLOR: '1',
  ...over,
});

/** Runs one CLI command to the end; `stdin` is piped in (and closed). */
async function bpay(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawn([...bpayCommand, ...args], {
    env: cliEnv(opts.env),
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), WAIT_MS);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

async function until<T>(what: string, check: () => T | undefined | null | false, ms = WAIT_MS): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** A background `bpay listen`, with its stdout collected line by line. */
function startListener(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([...bpayCommand, 'listen', ...args], { env: cliEnv(env), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  listeners.push(proc);
  const out = { text: '', err: '' };
  const collect = async (stream: ReadableStream<Uint8Array>, into: 'text' | 'err') => {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out[into] += decoder.decode(value, { stream: true });
    }
  };
  void collect(proc.stdout, 'text');
  void collect(proc.stderr, 'err');
  return { proc, out };
}

const configFile = () => join(home, 'xdg', 'bpay', 'config.json');

describe('bpay against a live server', () => {
  let intentId = '';
  let listener: ReturnType<typeof startListener>;
  let succeededEventId = '';

  test('login reads the key from stdin, checks it and stores it 0600', async () => {
    const r = await bpay(['login'], { stdin: `${key}\n` });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Logged in (sandbox');
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'xdg', 'bpay')).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(configFile(), 'utf8'));
    expect(stored.profiles.default.apiKey).toBe(key);
    expect(stored.profiles.default.baseUrl).toBe(baseUrl);
  });

  test('a wrong key is refused by the server and not stored (exit 1)', async () => {
    const r = await bpay(['login', '--profile', 'bad', '--api-key', 'sk_test_nope'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Request ID: req_/);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.bad).toBeUndefined();
  });

  test('payment-intents create prints a table; list --json is the API objects', async () => {
    const made = await bpay(['payment-intents', 'create', '--amount', '1500', '--description', 'CLI order', '--metadata', 'order=42']);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('$15.00 USD');
    expect(made.stdout).toMatch(/Status\s+requires_payment_method/);
    intentId = /ID\s+(pi_\w+)/.exec(made.stdout)?.[1] ?? '';
    expect(intentId).toStartWith('pi_');

    const list = await bpay(['payment-intents', 'list', '--json']);
    expect(list.code).toBe(0);
    const parsed = JSON.parse(list.stdout);
    expect(Array.isArray(parsed)).toBe(true);
    expect(parsed[0]).toMatchObject({ id: intentId, object: 'payment_intent', amount: 1500, metadata: { order: '42' }, description: 'CLI order' });

    const table = await bpay(['pi', 'list', '--limit', '5']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+AMOUNT\s+STATUS\s+DESCRIPTION\s+CREATED$/);
    expect(table.stdout).toContain(intentId);
  });

  test('listen forwards a triggered payment_intent.succeeded, signed with the printed (stable) secret', async () => {
    listener = startListener(['--forward-to', `http://127.0.0.1:${receiverServer.port}/hooks`]);
    const ready = await until('the Ready line', () => /Ready! Your webhook signing secret is (whsec_[0-9a-f]{32})/.exec(listener.out.text));
    listenSecret = ready[1]!;
    // The same secret every run: --print-secret (another process) prints it too.
    const printed = await bpay(['listen', '--print-secret']);
    expect(printed.stdout.trim()).toBe(listenSecret);

    const r = await bpay(['trigger', 'payment_intent.succeeded']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('confirmed: succeeded');
    const got = await until('the succeeded event at the receiver', () => received.find((d) => d.event?.type === 'payment_intent.succeeded'));
    expect(got.verified).toBe(true);
    expect(got.event!.data.object).toMatchObject({ object: 'payment_intent', status: 'succeeded', amount: 2000, description: 'bpay trigger' });
    succeededEventId = got.event!.id;
    expect(received.every((d) => d.verified)).toBe(true);
    await until('the listener to log the delivery', () => listener.out.text.includes('<-- [200] POST'));
    expect(listener.out.text).toContain(`--> payment_intent.succeeded [${succeededEventId}]`);
  });

  test('events resend reaches the running listener', async () => {
    const before = received.filter((d) => d.event?.id === succeededEventId).length;
    const r = await bpay(['events', 'resend', succeededEventId]);
    expect(r.code).toBe(0);
    await until('the resent event', () => received.filter((d) => d.event?.id === succeededEventId).length === before + 1);
  });

  test('trigger payment_intent.failed: the decline is expected, the event is forwarded', async () => {
    const r = await bpay(['trigger', 'payment_intent.failed', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.event).toBe('payment_intent.failed');
    expect(out.error.type).toBe('card_error');
    expect(out.payment_intent.status).toBe('requires_payment_method');
    const got = await until('the failed event', () => received.find((d) => d.event?.type === 'payment_intent.failed'));
    expect(got.verified).toBe(true);
    expect(got.event!.data.object.id).toBe(out.payment_intent.id);
  });

  test('trigger charge.refunded: pays, refunds in full, and the three refund events reach the listener', async () => {
    const r = await bpay(['trigger', 'charge.refunded', '--amount', '1200', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.event).toBe('charge.refunded');
    expect(out.refund).toMatchObject({ object: 'refund', amount: 1200, status: 'succeeded', reason: 'requested_by_customer', payment_intent: out.payment_intent.id });
    expect(out.payment_intent).toMatchObject({ status: 'succeeded', amount_received: 1200, amount_refunded: 1200 });
    expect(out.test_bcard).toStartWith('bc_');

    const charge = await until('charge.refunded', () => received.find((d) => d.event?.type === 'charge.refunded'));
    expect(charge.verified).toBe(true);
    expect(charge.event!.data.object).toMatchObject({ object: 'charge', payment_intent: out.payment_intent.id, amount_refunded: 1200, refunded: true });
    for (const type of ['refund.created', 'refund.updated']) {
      const got = await until(type, () => received.find((d) => d.event?.type === type));
      expect(got.verified).toBe(true);
      expect(got.event!.data.object).toMatchObject({ object: 'refund', id: out.refund.id });
    }

    const people = await bpay(['trigger', 'charge.refunded', '--amount', '700']);
    expect(people.code).toBe(0);
    expect(people.stdout).toMatch(/refund re_\w+ of \$7\.00 USD: succeeded/);
    expect(people.stdout).toMatch(/payment intent pi_\w+: \$7\.00 USD refunded/);
  });

  test('trigger refund.updated: a split test bcard whose tok_refundFail share refuses the refund; the refund partly succeeds, naming it', async () => {
    const r = await bpay(['trigger', 'refund.updated', '--amount', '1001', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // tok_visa took the odd cent (501) and got it back; tok_refundFail's 500 was refused.
    expect(out.refund).toMatchObject({ object: 'refund', status: 'succeeded', amount: 501 });
    expect(out.refund.failure_reason).toContain('share 2 (Visa •••• 5126)');
    expect(out.payment_intent).toMatchObject({ status: 'succeeded', amount_received: 1001, amount_refunded: 501 });
    const updated = await until('refund.updated with failure_reason', () =>
      received.find((d) => d.event?.type === 'refund.updated' && d.event.data.object.id === out.refund.id && d.event.data.object.status === 'succeeded'),
    );
    expect(updated.verified).toBe(true);
    expect(updated.event!.data.object.failure_reason).toContain('share 2 (Visa •••• 5126)');

    const people = await bpay(['trigger', 'refund.updated', '--amount', '600']);
    expect(people.code).toBe(0);
    expect(people.stdout).toContain('collected from tok_visa ($3.00 USD) and tok_refundFail ($3.00 USD)');
    expect(people.stdout).toMatch(/refund re_\w+ of \$3\.00 USD: succeeded/);
    expect(people.stdout).toContain('failure_reason: ');
  });

  test('trigger capture.failed: the capture failure is expected; nothing is paid', async () => {
    const r = await bpay(['trigger', 'capture.failed', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.error).toMatchObject({ type: 'card_error', code: 'processing_error' });
    expect(out.payment_intent).toMatchObject({ status: 'requires_payment_method', amount_received: 0 });
    expect(out.test_bcard).toBeUndefined();
    const people = await bpay(['trigger', 'capture.failed']);
    expect(people.code).toBe(0);
    expect(people.stdout).toContain('test bcard refused as expected: processing_error on allocations[1][source]');
  });

  test('SIGINT stops the listener with exit 0', async () => {
    listener.proc.kill('SIGINT');
    expect(await listener.proc.exited).toBe(0);
  });

  test('a key that stops working while listening: exit 1 with the status a request gets (401 api_key_expired), not 200', async () => {
    const u = await registerUser(ctx);
    const other = await createMerchant(ctx, u.cookie, 'sandbox');
    const own = startListener(['--forward-to', `http://127.0.0.1:${receiverServer.port}/hooks`], { BPAY_API_KEY: other.secretKey });
    await until('the Ready line', () => own.out.text.includes('Ready!'));
    const rolled = await call(ctx, `/api/merchants/${other.id}/roll-secret`, { method: 'POST', cookie: u.cookie, body: { expire_old_key_in: 'now' } });
    expect(rolled.status).toBe(200);
    // An event makes the stream check the key again before sending it.
    const fresh = new Bpay(rolled.body.secretApiKey, { baseUrl });
    await fresh.paymentIntents.create({ amount: 900, currency: 'usd' });
    const code = await Promise.race([own.proc.exited, Bun.sleep(WAIT_MS).then(() => 'still running')]);
    expect(code).toBe(1);
    await until('stderr to be read', () => own.out.err.includes('Status:'));
    expect(own.out.err).toContain('Type: authentication_error / api_key_expired');
    expect(own.out.err).toContain('Status: 401');
    expect(own.out.err).not.toContain('Status: 200');
    expect(own.out.err).toContain('It was replaced by a roll');
  });

  test('admin login (answers piped) and kyc review change a verification', async () => {
    const u = await registerUser(ctx);
    const sub = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie: u.cookie, rawBody: kycForm() });
    expect(sub.status).toBe(201);

    ctx.clock.advance(30_000); // a fresh TOTP step: each code works once
    const login = await bpay(['admin', 'login', '--username', 'root'], { stdin: `${ADMIN_PASSWORD}\n${codeNow(ctx)}\n` });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    // When the token expires: the login answer's expiresAt (15 minutes after the server's now), in UTC.
    const expiry = new Date(ctx.clock.now().getTime() + 15 * 60_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(login.stdout).toContain(`Signed in as root (profile "default"). The token expires at ${expiry} UTC: run \`bpay admin login\` again after that.`);
    expect(statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default.adminToken).toBeString();

    const pending = await bpay(['admin', 'kyc', 'list', '--status', 'pending', '--json']);
    expect(pending.code).toBe(0);
    const v = JSON.parse(pending.stdout).find((x: { user: { email: string } }) => x.user.email === u.email);
    expect(v.status).toBe('pending');

    const review = await bpay(['admin', 'kyc', 'review', v.id, '--status', 'verified', '--risk', '20', '--notes', 'passport ok']);
    expect(review.code).toBe(0);
    expect(review.stdout).toMatch(/Status\s+verified/);
    const shown = await bpay(['admin', 'kyc', 'show', v.id, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: v.id, status: 'verified', riskScore: 20, adminNotes: 'passport ok' });

    const users = await bpay(['admin', 'users', 'list', '--email', u.email, '--json']);
    expect(users.stderr).toBe('');
    expect(JSON.parse(users.stdout)).toMatchObject([{ email: u.email, isKycVerified: true }]);
  });

  test('payment-intents update: amount, description, a metadata merge (key= removes), --clear-metadata', async () => {
    const made = JSON.parse((await bpay(['pi', 'create', '--amount', '1200', '--metadata', 'order=7', '--metadata', 'coupon=X', '--json'])).stdout);
    const updated = await bpay(['pi', 'update', made.id, '--amount', '1500', '--description', 'Order 7, gift wrapped', '--metadata', 'coupon=', '--metadata', 'wrap=yes']);
    expect(updated.stderr).toBe('');
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain('$15.00 USD');
    const shown = JSON.parse((await bpay(['pi', 'get', made.id, '--json'])).stdout);
    expect(shown).toMatchObject({ amount: 1500, description: 'Order 7, gift wrapped', metadata: { order: '7', wrap: 'yes' } });
    const cleared = JSON.parse((await bpay(['pi', 'update', made.id, '--clear-metadata', '--json'])).stdout);
    expect(cleared.metadata).toEqual({});
    const nothing = await bpay(['pi', 'update', made.id]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('Nothing to update');
  });

  test('confirm by card details, manual capture and cancel', async () => {
    const sdk = new Bpay(key, { baseUrl });
    const card = await sdk.testHelpers.bcards.create({ amount: 3000 });
    const made = JSON.parse((await bpay(['pi', 'create', '--amount', '3000', '--capture-method', 'manual', '--json'])).stdout);
    const exp = `${String(card.exp_month).padStart(2, '0')}/${String(card.exp_year).slice(-2)}`;
    const confirmed = await bpay(['pi', 'confirm', made.id, '--card', String(card.number), '--exp', exp, '--cvc', String(card.cvc), '--json']);
    expect(confirmed.stderr).toBe('');
    expect(JSON.parse(confirmed.stdout).status).toBe('requires_capture');
    const captured = await bpay(['pi', 'capture', made.id, '--amount', '2500']);
    expect(captured.code).toBe(0);
    expect(captured.stdout).toMatch(/Received\s+\$25\.00 USD/);

    const other = JSON.parse((await bpay(['pi', 'create', '--amount', '900', '--json'])).stdout);
    const canceled = await bpay(['pi', 'cancel', other.id, '--reason', 'abandoned', '--json']);
    expect(JSON.parse(canceled.stdout)).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
  });

  test('refunds: part with a reason, over-refund refused, the rest once under one key, get, list by intent', async () => {
    const sdk = new Bpay(key, { baseUrl });
    const pi = await sdk.paymentIntents.create({ amount: 1500, currency: 'usd' });
    await sdk.paymentIntents.confirm(pi.id, { payment_method: (await sdk.testHelpers.bcards.create({ amount: 1500 })).id });

    const part = await bpay(['refunds', 'create', '--payment-intent', pi.id, '--amount', '500', '--reason', 'requested_by_customer', '--metadata', 'ticket=9']);
    expect(part.stderr).toBe('');
    expect(part.code).toBe(0);
    expect(part.stdout).toMatch(/^Amount\s+\$5\.00 USD$/m);
    expect(part.stdout).toMatch(/^Status\s+succeeded$/m);
    expect(part.stdout).toMatch(new RegExp(`^Payment intent\\s+${pi.id}$`, 'm'));
    expect(part.stdout).toMatch(/^Reason\s+requested_by_customer$/m);
    expect(part.stdout).toMatch(/^Metadata\s+ticket=9$/m);
    const partId = /^ID\s+(re_\w+)$/m.exec(part.stdout)?.[1] ?? '';
    expect(partId).toStartWith('re_');

    const over = await bpay(['refunds', 'create', '--payment-intent', pi.id, '--amount', '5000']);
    expect(over.code).toBe(1);
    expect(over.stdout).toBe('');
    expect(over.stderr).toContain('error: Refund amount ($50.00) is greater than the amount not yet refunded on this PaymentIntent ($10.00).');
    expect(over.stderr).toContain('Param: amount');

    const args = ['refunds', 'create', '--payment-intent', pi.id, '--idempotency-key', `cli-refund-${pi.id}`, '--json'];
    const rest = JSON.parse((await bpay(args)).stdout);
    expect(rest).toMatchObject({ object: 'refund', amount: 1000, status: 'succeeded', reason: null, payment_intent: pi.id });
    // Run again with the same key: the same refund, nothing refunded twice.
    expect(JSON.parse((await bpay(args)).stdout)).toEqual(rest);
    expect((await sdk.paymentIntents.retrieve(pi.id)).amount_refunded).toBe(1500);
    const done = await bpay(['refunds', 'create', '--payment-intent', pi.id]);
    expect(done.code).toBe(1);
    expect(done.stderr).toContain('invalid_request_error / charge_already_refunded');

    const got = await bpay(['refunds', 'get', partId, '--json']);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: partId, amount: 500, metadata: { ticket: '9' } });

    const table = await bpay(['refunds', 'list', '--payment-intent', pi.id]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+AMOUNT\s+STATUS\s+PAYMENT INTENT\s+REASON\s+CREATED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([rest.id, partId]);
    const json = JSON.parse((await bpay(['refunds', 'list', '--payment-intent', pi.id, '--limit', '1', '--json'])).stdout);
    expect(json.map((r: { id: string }) => r.id)).toEqual([rest.id]);
    const unpaid = await sdk.paymentIntents.create({ amount: 700, currency: 'usd' });
    const none = await bpay(['refunds', 'list', '--payment-intent', unpaid.id]);
    expect(none.stdout).toBe(`No refunds of ${unpaid.id}.\n`);
    // An intent that is not this merchant's is named, not answered with an empty list.
    const unknown = await bpay(['refunds', 'list', '--payment-intent', 'pi_000000000000000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No such payment_intent: 'pi_000000000000000000000000'");
  });

  test('webhooks: create shows the secret once, update, roll-secret, delete', async () => {
    const made = await bpay(['webhooks', 'create', '--url', 'http://127.0.0.1:9/hooks', '--events', 'payment_intent.succeeded,payment_intent.failed', '--json']);
    expect(made.code).toBe(0);
    const ep = JSON.parse(made.stdout);
    expect(ep.secret).toStartWith('whsec_');
    expect(ep.enabled_events).toEqual(['payment_intent.succeeded', 'payment_intent.failed']);

    const list = await bpay(['webhooks', 'list']);
    expect(list.stdout).toContain(ep.id);
    const disabled = await bpay(['webhooks', 'update', ep.id, '--disabled', '--json']);
    expect(JSON.parse(disabled.stdout).status).toBe('disabled');
    const rolled = JSON.parse((await bpay(['webhooks', 'roll-secret', ep.id, '--json'])).stdout);
    expect(rolled.secret).toStartWith('whsec_');
    expect(rolled.secret).not.toBe(ep.secret);
    // With a grace: the secret it replaced keeps signing for 24 hours (kept sealed beside the new one).
    const graced = JSON.parse((await bpay(['webhooks', 'roll-secret', ep.id, '--expire-old-secret-in', '24h', '--json'])).stdout);
    const [row] = await ctx.handle.db.select().from(schema.webhookEndpoints).where(eq(schema.webhookEndpoints.id, ep.id));
    expect(unseal(ctx.deps.webhookKey, row!.secretSealed)).toBe(graced.secret);
    expect(unseal(ctx.deps.webhookKey, row!.previousSecretSealed!)).toBe(rolled.secret);
    expect(row!.previousSecretExpiresAt!.getTime() - ctx.clock.now().getTime()).toBeGreaterThan(23 * 3600_000);
    const badGrace = await bpay(['webhooks', 'roll-secret', ep.id, '--expire-old-secret-in', '7d']);
    expect(badGrace.code).toBe(2);
    expect(badGrace.stderr).toContain('Allowed choices are now, 1h, 24h');
    const deleted = await bpay(['webhooks', 'delete', ep.id]);
    expect(deleted.code).toBe(0);
    expect((await bpay(['webhooks', 'get', ep.id])).code).toBe(1);
  });

  describe('exit codes', () => {
    test('1 on an API error, with the message, type/code and request id on stderr', async () => {
      const r = await bpay(['payment-intents', 'get', 'pi_missing']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).toMatch(/invalid_request_error \/ resource_missing/);
      expect(r.stderr).toMatch(/Request ID: req_\w+/);
    });
    test('1 when trigger is given a production key', async () => {
      const r = await bpay(['trigger', 'payment_intent.created', '--api-key', 'sk_live_whatever']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('sandbox only');
    });
    test('2 on usage errors: unknown flag, missing key, bad --risk, unknown event', async () => {
      const unknown = await bpay(['payment-intents', 'list', '--bogus']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("unknown option '--bogus'");

      const noKey = await bpay(['usage'], { env: { XDG_CONFIG_HOME: join(home, 'empty') } });
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain('No API key. Run `bpay login` or pass --api-key / set BPAY_API_KEY.');

      // A key pasted with a line break (or anything that is not sk_…) stops before any request is made.
      const mangled = await bpay(['usage'], { env: { BPAY_API_KEY: `${key}\n${key}` } });
      expect(mangled.code).toBe(2);
      expect(mangled.stderr).toContain('The API key from BPAY_API_KEY is not a secret key');

      const risk = await bpay(['admin', 'kyc', 'review', 'kyc_x', '--status', 'verified', '--risk', '101']);
      expect(risk.code).toBe(2);
      expect(risk.stderr).toContain('--risk must be a whole number from 0 to 100');

      const event = await bpay(['trigger', 'payment_intent.exploded']);
      expect(event.code).toBe(2);

      // Amounts are checked here as the server checks them (50 cents at least), before any request.
      for (const args of [
        ['payment-intents', 'create', '--amount', '49'],
        ['pi', 'update', 'pi_x', '--amount', '100000000'],
        ['trigger', 'payment_intent.created', '--amount', '10'],
      ]) {
        const r = await bpay(args);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('--amount must be a whole number of cents from 50 to 99999999 ($0.50 to $999,999.99)');
      }
    });
  });
});

