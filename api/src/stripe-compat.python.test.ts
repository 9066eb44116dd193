/**
 * Stripe's own Python library (Debian's python3-stripe, the `stripe` module 5.x) against bpay on a real port (issue 28
 * §1): a merchant's Python code, pointed at bpay with `stripe.api_base`, creates and confirms in one call, retrieves,
 * refunds, adds a webhook endpoint, and verifies deliveries with `stripe.Webhook.construct_event` unchanged, also
 * while a rolled secret's grace lasts (two v1= in Stripe-Signature). Skipped, saying so, where `import stripe` fails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { setPeerAddress } from './lib/request-context';
import { resetRateWindows } from './modules/merchants/usage';
import { deliverDueWebhooks } from './modules/webhooks/worker';
import { TestClock } from './lib/clock';
import { makeTestApp, type TestContext } from '../test-support/app';
import { createMerchant, registerUser, testBcardCard, type TestMerchant } from '../test-support/world';

/** The Python that has the stripe module: BPAY_PYTHON if set, else Debian's (a pyenv shim may come first on PATH). */
function findPython(): string | null {
  const candidates = [process.env.BPAY_PYTHON, '/usr/bin/python3', 'python3'].filter((c): c is string => !!c);
  for (const python of candidates) {
    try {
      if (Bun.spawnSync([python, '-c', 'import stripe'], { stdout: 'ignore', stderr: 'ignore' }).exitCode === 0) return python;
    } catch {
      // Not installed at that path.
    }
  }
  return null;
}

const python = findPython();
if (!python) {
  console.warn(
    "stripe-compat.python.test.ts skipped: no python3 can `import stripe`. Install Debian's python3-stripe " +
      '(apt-get install -y python3-stripe; scripts/lib.sh ensure_python_stripe does it as root) or set BPAY_PYTHON.',
  );
}

/**
 * Runs a Python script with `input` as JSON on stdin and answers what it printed as JSON. Asynchronously: the server
 * it calls runs in this process.
 */
async function runPython(script: string, input: unknown): Promise<any> {
  const proc = Bun.spawn([python!, '-c', script], { stdin: Buffer.from(JSON.stringify(input)), stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`python failed (${code}): ${err}`);
  return JSON.parse(out);
}

/** A merchant's code, as Stripe's Python quickstart writes it, with api_base pointed at bpay. */
const QUICKSTART = `
import json, sys
import stripe
args = json.load(sys.stdin)
stripe.api_base = args["base"]
stripe.api_key = args["key"]
stripe.max_network_retries = 0

endpoint = stripe.WebhookEndpoint.create(url=args["hooks"], enabled_events=["payment_intent.succeeded", "charge.refunded"])
intent = stripe.PaymentIntent.create(
    amount=2000,
    currency="usd",
    automatic_payment_methods={"enabled": True},
    confirm=True,
    payment_method=args["bcard"],
    return_url="https://shop.example/done",
    metadata={"order": "42"},
)
got = stripe.PaymentIntent.retrieve(intent.id)
refund = stripe.Refund.create(payment_intent=intent.id, amount=500)
try:
    stripe.PaymentIntent.retrieve("pi_nothing")
    missing = None
except stripe.error.InvalidRequestError as e:
    missing = {"status": e.http_status, "code": e.code}
print(json.dumps({
    "endpoint": {"id": endpoint.id, "secret": endpoint.secret},
    "created": {"id": intent.id, "status": intent.status, "amount_received": intent.amount_received},
    "retrieved": {"id": got.id, "status": got.status, "metadata": got.metadata.to_dict()},
    "refund": {"id": refund.id, "object": refund.object, "status": refund.status, "amount": refund.amount, "payment_intent": refund.payment_intent},
    "missing": missing,
}))
`;

/** A merchant's webhook handler, as Stripe's Python docs write it: construct_event on the raw body and the header. */
const VERIFY = `
import json, sys
import stripe
out = []
for c in json.load(sys.stdin):
    try:
        event = stripe.Webhook.construct_event(c["payload"], c["header"], c["secret"])
        out.append({"type": event["type"], "id": event["data"]["object"]["id"]})
    except stripe.error.SignatureVerificationError:
        out.append({"error": "SignatureVerificationError"})
print(json.dumps(out))
`;

let ctx: TestContext;
let server: ReturnType<typeof Bun.serve>;
let hooks: ReturnType<typeof Bun.serve>;
let merchant: TestMerchant;
let base: string;
const got: Array<{ body: string; signature: string }> = [];

describe.skipIf(!python)('stripe-python (python3-stripe) against bpay', () => {
  beforeAll(async () => {
    // Real time: construct_event compares the signature's timestamp with Python's own clock.
    ctx = await makeTestApp({ clock: new TestClock(Date.now()) });
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (req, srv) => {
        const ip = srv.requestIP(req);
        if (ip) setPeerAddress(req, ip.address);
        resetRateWindows();
        return ctx.app.handle(req);
      },
    });
    hooks = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => (got.push({ body: await req.text(), signature: req.headers.get('stripe-signature') ?? '' }), new Response('ok')),
    });
    base = `http://127.0.0.1:${server.port}`;
    const owner = await registerUser(ctx);
    merchant = await createMerchant(ctx, owner.cookie, 'sandbox');
  });
  afterAll(async () => {
    await server?.stop(true);
    await hooks?.stop(true);
    ctx?.close();
  });

  test('create with confirm, retrieve, refund and a webhook endpoint; construct_event verifies the deliveries, also during a secret roll', async () => {
    const bcard = await testBcardCard(ctx, merchant.secretKey, 2000);
    const r = await runPython(QUICKSTART, { base, key: merchant.secretKey, bcard: bcard.id, hooks: `http://127.0.0.1:${hooks.port}/hooks` });
    expect(r.created).toMatchObject({ status: 'succeeded', amount_received: 2000 });
    expect(r.created.id).toStartWith('pi_');
    expect(r.retrieved).toEqual({ id: r.created.id, status: 'succeeded', metadata: { order: '42' } });
    expect(r.refund).toMatchObject({ object: 'refund', status: 'succeeded', amount: 500, payment_intent: r.created.id });
    expect(r.missing).toEqual({ status: 404, code: 'resource_missing' });
    expect(r.endpoint.secret).toMatch(/^whsec_/);

    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    const types = got.map((g) => (JSON.parse(g.body) as { type: string }).type).sort();
    expect(types).toEqual(['charge.refunded', 'payment_intent.succeeded']);
    const succeeded = got.find((g) => g.body.includes('"payment_intent.succeeded"'))!;
    const secret: string = r.endpoint.secret;
    const checked = await runPython(VERIFY, [
      { payload: succeeded.body, header: succeeded.signature, secret },
      { payload: succeeded.body.replace(r.created.id, 'pi_forged'), header: succeeded.signature, secret },
      { payload: succeeded.body, header: succeeded.signature, secret: `whsec_${'x'.repeat(43)}` },
    ]);
    expect(checked).toEqual([{ type: 'payment_intent.succeeded', id: r.created.id }, { error: 'SignatureVerificationError' }, { error: 'SignatureVerificationError' }]);

    // The secret rolled with a 24-hour grace: the next delivery carries two v1=, and Python verifies with either.
    const rolled = await fetch(`${base}/v1/webhook_endpoints/${r.endpoint.id}/roll_secret`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'expire_old_secret_in=24h',
    });
    expect(rolled.status).toBe(200);
    const fresh = ((await rolled.json()) as { secret: string }).secret;
    got.length = 0;
    const refundAgain = await runPython(
      `import json, sys, stripe\na = json.load(sys.stdin)\nstripe.api_base = a["base"]\nstripe.api_key = a["key"]\nprint(json.dumps(stripe.Refund.create(payment_intent=a["pi"], amount=100).status))`,
      { base, key: merchant.secretKey, pi: r.created.id },
    );
    expect(refundAgain).toBe('succeeded');
    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    expect(got).toHaveLength(1);
    expect(got[0]!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const both = await runPython(VERIFY, [
      { payload: got[0]!.body, header: got[0]!.signature, secret: fresh },
      { payload: got[0]!.body, header: got[0]!.signature, secret },
    ]);
    expect(both).toEqual([
      { type: 'charge.refunded', id: expect.stringMatching(/^ch_/) },
      { type: 'charge.refunded', id: expect.stringMatching(/^ch_/) },
    ]);
  }, 60_000);
});
