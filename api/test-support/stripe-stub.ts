/**
 * A local stand-in for Stripe's API, for tests only: point the real SDK at it (host 'localhost', its port,
 * protocol 'http', maxNetworkRetries 0).
 *
 * It records every request and, by default, emulates the part of Stripe that bpay uses, with in-memory objects:
 * customers (+search), payment methods (create, retrieve, attach, detach), payment intents (create+confirm,
 * retrieve with expand, search by metadata, capture, cancel), refunds (create, list), Issuing cardholders and cards
 * (create, retrieve with number/cvc, update) and the balance. POSTs honour Idempotency-Key like Stripe: the same
 * key and body replays the first answer, another body under the key is a 400 idempotency_error.
 *
 * Card behaviour follows Stripe's test cards (TEST_CARDS). Tests script anything else with `override` (a fixed
 * answer, or 'hang' to never answer) and `completeChallenge` (the cardholder finishing 3-D Secure on Stripe's
 * page).
 */
export const TEST_CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  amex: '378282246310005',
  discover: '6011111111111117',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expired: '4000000000000069',
  incorrectCvc: '4000000000000127',
  processingError: '4000000000000119',
  /** Always asks for 3-D Secure; off-session it is refused with authentication_required. */
  threeDSecure: '4000002760003184',
  /** Fails the Luhn check. */
  incorrectNumber: '4242424242424241',
} as const;

/** Stripe's debit and prepaid test cards (https://docs.stripe.com/testing#cards); the others are credit cards. */
export const STUB_CARD_FUNDING: Record<string, 'debit' | 'prepaid'> = {
  '4000056655665556': 'debit',
  '5200828282828210': 'debit',
  '5105105105105100': 'prepaid',
};

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The form-encoded body (empty for GET). Nested params keep Stripe's names: `card[number]`. */
  form: URLSearchParams;
  headers: Headers;
  idempotencyKey: string | null;
  authorization: string | null;
}

export interface StubAnswer {
  status: number;
  /** Sent as JSON, or as it is when a string. */
  body: unknown;
  headers?: Record<string, string>;
}

type Json = Record<string, unknown>;

interface Override {
  method?: string;
  path: string | RegExp;
  answer: StubAnswer | 'hang' | ((req: RecordedRequest) => StubAnswer | 'hang' | undefined);
  times: number;
}

export interface StripeStub {
  readonly port: number;
  readonly url: string;
  /** Every request, oldest first. */
  readonly requests: RecordedRequest[];
  /** The emulated objects by id, to inspect or to change (`objects.get('pi_1').status = 'canceled'`). */
  readonly objects: Map<string, Json>;
  /**
   * Answers matching requests with `answer` instead of the emulation (`times` requests, default 1; Infinity for
   * all). 'hang' never answers, to test timeouts. A function may return undefined to fall through.
   */
  override(match: { method?: string; path: string | RegExp }, answer: Override['answer'], times?: number): void;
  /** The cardholder finishes (or fails) 3-D Secure on Stripe's page for intent `id`. */
  completeChallenge(id: string, succeed: boolean): void;
  /** Requests whose method and path match. */
  find(method: string, path: string | RegExp): RecordedRequest[];
  /** Forgets requests and overrides (objects stay). */
  clearRequests(): void;
  stop(): Promise<void>;
}

/** A Stripe error body, as the API sends it. */
export function stripeError(status: number, error: Json): StubAnswer {
  return { status, body: { error } };
}

export function startStripeStub(opts: { secretKey?: string } = {}): StripeStub {
  const requests: RecordedRequest[] = [];
  const objects = new Map<string, Json>();
  const overrides: Override[] = [];
  const replays = new Map<string, { fingerprint: string; answer: StubAnswer }>();
  const hanging = new Set<() => void>();
  let seq = 0;
  const newId = (prefix: string) => `${prefix}_stub${String(++seq).padStart(6, '0')}`;
  const now = () => Math.floor(Date.now() / 1000);

  const ok = (body: unknown): StubAnswer => ({ status: 200, body });
  const missing = (id: string) =>
    stripeError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such object: '${id}'` });
  const get = (id: string, object: string): Json | undefined => {
    const o = objects.get(id);
    return o && o.object === object ? o : undefined;
  };
  const put = (o: Json): Json => {
    objects.set(String(o.id), o);
    return o;
  };
  /** Reads `name[key]` params into an object (one level, which is all bpay sends under metadata). */
  const nested = (form: URLSearchParams, name: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of form) {
      const m = k.match(new RegExp(`^${name}\\[([^\\]]+)\\]$`));
      if (m?.[1]) out[m[1]] = v;
    }
    return out;
  };
  const expandList = (q: URLSearchParams): string[] => [...q].filter(([k]) => k.startsWith('expand')).map(([, v]) => v);

  /** `metadata['field']:'value'` only: the one search clause bpay uses. */
  function search(object: string, query: string | null): StubAnswer {
    const m = (query ?? '').match(/^metadata\['([^']+)'\]:'((?:[^'\\]|\\.)*)'$/);
    if (!m?.[1] || m[2] === undefined) {
      return stripeError(400, { type: 'invalid_request_error', code: 'parameter_invalid_string', message: 'Unsupported query' });
    }
    const field = m[1];
    const value = m[2].replace(/\\(.)/g, '$1');
    const data = [...objects.values()].filter((o) => o.object === object && (o.metadata as Json)[field] === value);
    return ok({ object: 'search_result', data, has_more: false, next_page: null, url: '/v1/search' });
  }

  function cardBehaviour(number: string) {
    switch (number) {
      case TEST_CARDS.declined:
        return { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };
      case TEST_CARDS.insufficientFunds:
        return { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' };
      case TEST_CARDS.expired:
        return { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' };
      case TEST_CARDS.incorrectCvc:
        return { code: 'incorrect_cvc', decline_code: 'incorrect_cvc', message: "Your card's security code is incorrect." };
      case TEST_CARDS.processingError:
        return { code: 'processing_error', decline_code: 'processing_error', message: 'An error occurred while processing your card.' };
      default:
        return null;
    }
  }

  function createPaymentMethod(form: URLSearchParams): StubAnswer {
    if (form.get('type') === 'us_bank_account') {
      const bank = nested(form, 'us_bank_account');
      return ok(
        put({
          id: newId('pm'),
          object: 'payment_method',
          type: 'us_bank_account',
          customer: null,
          billing_details: { name: form.get('billing_details[name]') },
          us_bank_account: {
            bank_name: 'STRIPE TEST BANK',
            routing_number: bank.routing_number,
            last4: (bank.account_number ?? '').slice(-4),
            account_type: bank.account_type,
            account_holder_type: bank.account_holder_type,
          },
          metadata: {},
          created: now(),
          _account: bank.account_number,
        }),
      );
    }
    const card = nested(form, 'card');
    const number = (card.number ?? '').replace(/\D/g, '');
    if (!luhn(number)) {
      return stripeError(402, { type: 'card_error', code: 'incorrect_number', param: 'card[number]', message: 'Your card number is incorrect.' });
    }
    return ok(
      put({
        id: newId('pm'),
        object: 'payment_method',
        type: 'card',
        customer: null,
        billing_details: { name: form.get('billing_details[name]') },
        card: {
          brand: brandOf(number),
          funding: STUB_CARD_FUNDING[number] ?? 'credit',
          last4: number.slice(-4),
          exp_month: Number(card.exp_month),
          exp_year: Number(card.exp_year),
        },
        metadata: {},
        created: now(),
        // Kept out of every answer (see publicView); the emulation needs it to pick the card's behaviour.
        _number: number,
      }),
    );
  }

  function createPaymentIntent(form: URLSearchParams): StubAnswer {
    const pmId = form.get('payment_method') ?? '';
    const pm = get(pmId, 'payment_method');
    if (!pm) return missing(pmId);
    const pi = put({
      id: newId('pi'),
      object: 'payment_intent',
      amount: Number(form.get('amount')),
      currency: form.get('currency'),
      capture_method: form.get('capture_method') ?? 'automatic_async',
      customer: form.get('customer'),
      payment_method: pmId,
      description: form.get('description'),
      metadata: nested(form, 'metadata'),
      status: 'requires_confirmation',
      next_action: null,
      last_payment_error: null,
      latest_charge: null,
      created: now(),
    });
    if (form.get('confirm') !== 'true') return ok(publicView(pi));
    if (pm.type === 'us_bank_account') {
      // ACH: confirmed, it is processing until it settles (tests move it on through `objects`).
      const charge = put({ id: newId('py'), object: 'charge', status: 'pending', captured: true, refunded: false, amount: pi.amount, payment_intent: pi.id, failure_code: null, failure_message: null });
      pi.latest_charge = charge.id;
      pi.status = 'processing';
      return ok(publicView(pi));
    }
    const number = String(pm._number);
    const refusal = cardBehaviour(number);
    if (refusal) return decline(pi, pm, refusal);
    if (number === TEST_CARDS.threeDSecure) {
      if (form.get('off_session') === 'true') {
        return decline(pi, pm, { code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' });
      }
      const returnUrl = form.get('return_url');
      pi.status = 'requires_action';
      pi.next_action = returnUrl
        ? { type: 'redirect_to_url', redirect_to_url: { url: `https://hooks.stripe.test/3d_secure_2/hosted?payment_intent=${pi.id}`, return_url: returnUrl } }
        : { type: 'use_stripe_sdk', use_stripe_sdk: {} };
      return ok(publicView(pi));
    }
    authorize(pi);
    return ok(publicView(pi));
  }

  function authorize(pi: Json): void {
    const charge = put({ id: newId('ch'), object: 'charge', status: 'succeeded', captured: false, refunded: false, amount: pi.amount, payment_intent: pi.id });
    pi.latest_charge = charge.id;
    pi.status = pi.capture_method === 'manual' ? 'requires_capture' : 'succeeded';
    if (pi.status === 'succeeded') charge.captured = true;
  }

  function decline(pi: Json, pm: Json, e: { code: string; decline_code: string; message: string }): StubAnswer {
    pi.status = 'requires_payment_method';
    pi.last_payment_error = { type: 'card_error', ...e };
    return stripeError(402, { type: 'card_error', ...e, payment_intent: publicView(pi), payment_method: publicView(pm) });
  }

  function unexpectedState(pi: Json, action: string): StubAnswer {
    return stripeError(400, {
      type: 'invalid_request_error',
      code: 'payment_intent_unexpected_state',
      message: `You cannot ${action} this PaymentIntent because it has a status of ${String(pi.status)}.`,
      payment_intent: publicView(pi),
    });
  }

  function expandIntent(pi: Json, expand: string[]): Json {
    const out = { ...publicView(pi) };
    if (expand.includes('payment_method') && typeof pi.payment_method === 'string') {
      out.payment_method = publicView(objects.get(pi.payment_method) ?? {});
    }
    if (expand.includes('latest_charge') && typeof pi.latest_charge === 'string') {
      out.latest_charge = publicView(objects.get(pi.latest_charge) ?? {});
    }
    return out;
  }

  function emulate(req: RecordedRequest): StubAnswer {
    const { method, path, form, query } = req;
    const seg = path.split('/').filter(Boolean); // ['v1', ...]
    const isId = (s: string, i: number) => i >= 2 && !ROUTE_WORDS.has(s);
    const route = `${method} /${seg.map((s, i) => (isId(s, i) ? ':id' : s)).join('/')}`;
    const id = seg.find(isId) ?? '';

    switch (route) {
      case 'GET /v1/balance':
        return ok({ object: 'balance', available: [{ amount: 0, currency: 'usd' }], pending: [], livemode: false });
      case 'GET /v1/customers/search':
        return search('customer', query.get('query'));
      case 'POST /v1/customers':
        return ok(put({ id: newId('cus'), object: 'customer', description: form.get('description'), metadata: nested(form, 'metadata'), created: now() }));
      case 'POST /v1/payment_methods':
        return createPaymentMethod(form);
      case 'GET /v1/payment_methods/:id': {
        const pm = get(id, 'payment_method');
        return pm ? ok(publicView(pm)) : missing(id);
      }
      case 'POST /v1/payment_methods/:id/attach':
      case 'POST /v1/payment_methods/:id/detach': {
        const pm = get(id, 'payment_method');
        if (!pm) return missing(id);
        pm.customer = seg[3] === 'attach' ? form.get('customer') : null;
        return ok(publicView(pm));
      }
      case 'POST /v1/payment_intents':
        return createPaymentIntent(form);
      case 'POST /v1/setup_intents': {
        const pmId = form.get('payment_method') ?? '';
        const pm = get(pmId, 'payment_method');
        if (!pm) return missing(pmId);
        pm.customer = form.get('customer');
        return ok(
          publicView(
            put({
              id: newId('seti'),
              object: 'setup_intent',
              customer: form.get('customer'),
              payment_method: pmId,
              status: 'requires_action',
              next_action: { type: 'verify_with_microdeposits', verify_with_microdeposits: { microdeposit_type: 'amounts' } },
              last_setup_error: null,
              metadata: nested(form, 'metadata'),
              mandate_data: { ip_address: form.get('mandate_data[customer_acceptance][online][ip_address]'), user_agent: form.get('mandate_data[customer_acceptance][online][user_agent]') },
              created: now(),
              _attempts: 0,
            }),
          ),
        );
      }
      case 'GET /v1/setup_intents/:id': {
        const seti = get(id, 'setup_intent');
        return seti ? ok(publicView(seti)) : missing(id);
      }
      case 'POST /v1/setup_intents/:id/verify_microdeposits': {
        // Stripe's test values: 32 and 45 cents; 000111111116 ("no account") never gets its deposits; 10 tries.
        const seti = get(id, 'setup_intent');
        if (!seti) return missing(id);
        if (seti.status !== 'requires_action') {
          return stripeError(400, { type: 'invalid_request_error', code: 'setup_intent_unexpected_state', message: `This SetupIntent has a status of ${String(seti.status)}.` });
        }
        const pm = get(String(seti.payment_method), 'payment_method');
        const fail = (code: string, message: string) => stripeError(400, { type: 'invalid_request_error', code, message });
        if (pm?._account === '000111111116') {
          seti.status = 'requires_payment_method';
          return fail('payment_method_microdeposit_failed', 'Microdeposits failed to deposit into the provided bank account.');
        }
        const amounts = [form.get('amounts[0]'), form.get('amounts[1]')].map(Number).sort((a, b) => a - b);
        if (amounts[0] === 32 && amounts[1] === 45) {
          seti.status = 'succeeded';
          seti.next_action = null;
          return ok(publicView(seti));
        }
        seti._attempts = Number(seti._attempts) + 1;
        if (Number(seti._attempts) >= 10) {
          seti.status = 'requires_payment_method';
          return fail('payment_method_microdeposit_verification_attempts_exceeded', 'You have exceeded the number of allowed verification attempts.');
        }
        return fail('payment_method_microdeposit_verification_amounts_mismatch', 'The amounts provided do not match the amounts that were sent to the bank account.');
      }
      case 'GET /v1/payment_intents/search':
        return search('payment_intent', query.get('query'));
      case 'GET /v1/payment_intents/:id': {
        const pi = get(id, 'payment_intent');
        return pi ? ok(expandIntent(pi, expandList(query))) : missing(id);
      }
      case 'POST /v1/payment_intents/:id/capture': {
        const pi = get(id, 'payment_intent');
        if (!pi) return missing(id);
        if (pi.status !== 'requires_capture') return unexpectedState(pi, 'capture');
        pi.status = 'succeeded';
        const ch = objects.get(String(pi.latest_charge));
        if (ch) ch.captured = true;
        return ok(publicView(pi));
      }
      case 'POST /v1/payment_intents/:id/cancel': {
        const pi = get(id, 'payment_intent');
        if (!pi) return missing(id);
        if (pi.status === 'succeeded' || pi.status === 'canceled') return unexpectedState(pi, 'cancel');
        pi.status = 'canceled';
        return ok(publicView(pi));
      }
      case 'GET /v1/refunds': {
        const pi = query.get('payment_intent');
        const data = [...objects.values()].filter((o) => o.object === 'refund' && (!pi || o.payment_intent === pi));
        return ok({ object: 'list', data, has_more: false, url: '/v1/refunds' });
      }
      case 'POST /v1/refunds': {
        const piId = form.get('payment_intent') ?? '';
        const pi = get(piId, 'payment_intent');
        if (!pi) return missing(piId);
        if (pi.status !== 'succeeded') {
          return stripeError(400, { type: 'invalid_request_error', code: 'charge_not_refundable', message: 'This PaymentIntent has no successful charge to refund.' });
        }
        const amount = Number(form.get('amount') ?? pi.amount);
        return ok(put({ id: newId('re'), object: 'refund', amount, payment_intent: piId, status: 'succeeded', metadata: nested(form, 'metadata'), created: now() }));
      }
      case 'POST /v1/issuing/cardholders':
        return ok(put({ id: newId('ich'), object: 'issuing.cardholder', type: form.get('type'), name: form.get('name'), status: 'active', metadata: nested(form, 'metadata'), created: now() }));
      case 'POST /v1/issuing/cards': {
        const holderId = form.get('cardholder') ?? '';
        const holder = get(holderId, 'issuing.cardholder');
        if (!holder) return missing(holderId);
        const number = `4000009990${String(seq).padStart(6, '0')}`;
        const exp = new Date();
        return ok(
          publicView(
            put({
              id: newId('ic'),
              object: 'issuing.card',
              brand: 'Visa',
              cardholder: holder,
              currency: form.get('currency'),
              type: form.get('type'),
              status: form.get('status') ?? 'inactive',
              last4: number.slice(-4),
              exp_month: exp.getUTCMonth() + 1,
              exp_year: exp.getUTCFullYear() + 3,
              spending_controls: {
                spending_limits: [{ amount: Number(form.get('spending_controls[spending_limits][0][amount]')), interval: form.get('spending_controls[spending_limits][0][interval]') }],
              },
              metadata: nested(form, 'metadata'),
              created: now(),
              _number: number,
              _cvc: String(100 + (seq % 900)),
            }),
          ),
        );
      }
      case 'GET /v1/issuing/cards/:id': {
        const card = get(id, 'issuing.card');
        if (!card) return missing(id);
        const out = publicView(card);
        const expand = expandList(query);
        if (expand.includes('number')) out.number = card._number;
        if (expand.includes('cvc')) out.cvc = card._cvc;
        return ok(out);
      }
      case 'POST /v1/issuing/cards/:id': {
        const card = get(id, 'issuing.card');
        if (!card) return missing(id);
        if (card.status === 'canceled') {
          return stripeError(400, { type: 'invalid_request_error', message: 'This card has been canceled and cannot be updated.' });
        }
        const status = form.get('status');
        if (status) card.status = status;
        return ok(publicView(card));
      }
    }
    return stripeError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  async function answer(req: RecordedRequest): Promise<StubAnswer | 'hang'> {
    if (opts.secretKey && req.authorization !== `Bearer ${opts.secretKey}`) {
      return stripeError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' });
    }
    const o = overrides.find((x) => (!x.method || x.method === req.method) && (typeof x.path === 'string' ? x.path === req.path : x.path.test(req.path)));
    if (o) {
      const a = typeof o.answer === 'function' ? o.answer(req) : o.answer;
      if (a !== undefined) {
        if (--o.times <= 0) overrides.splice(overrides.indexOf(o), 1);
        return a;
      }
    }
    if (req.method !== 'POST' || !req.idempotencyKey) return emulate(req);
    const fingerprint = `${req.path}?${req.form.toString()}`;
    const seen = replays.get(req.idempotencyKey);
    if (seen) {
      if (seen.fingerprint !== fingerprint) {
        return stripeError(400, {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${req.idempotencyKey}' if you meant to execute a different request.`,
        });
      }
      return { ...seen.answer, headers: { ...seen.answer.headers, 'idempotent-replayed': 'true' } };
    }
    // Like Stripe, every answer the API produced is saved under the key, errors included. (Overrides stand for
    // faults outside the API, such as a dropped connection, so they are never saved.)
    const a = emulate(req);
    replays.set(req.idempotencyKey, { fingerprint, answer: a });
    return a;
  }

  const server = Bun.serve({
    port: 0,
    hostname: 'localhost',
    async fetch(request) {
      const url = new URL(request.url);
      const body = request.method === 'GET' ? '' : await request.text();
      const req: RecordedRequest = {
        method: request.method,
        path: url.pathname,
        query: url.searchParams,
        form: new URLSearchParams(body),
        headers: request.headers,
        idempotencyKey: request.headers.get('idempotency-key'),
        authorization: request.headers.get('authorization'),
      };
      requests.push(req);
      const a = await answer(req);
      if (a === 'hang') {
        return new Promise<Response>((resolve) => {
          const release = () => resolve(new Response(null, { status: 503 }));
          hanging.add(release);
        });
      }
      const headers = { 'request-id': `req_${requests.length}`, ...a.headers };
      // A string body goes out as it is (an HTML error page from a proxy, say); anything else as JSON.
      if (typeof a.body === 'string') return new Response(a.body, { status: a.status, headers: { 'content-type': 'text/html', ...headers } });
      return Response.json(a.body, { status: a.status, headers });
    },
  });
  const port = server.port ?? 0;

  return {
    port,
    url: `http://localhost:${port}`,
    requests,
    objects,
    override(match, a, times = 1) {
      overrides.push({ ...match, answer: a, times });
    },
    completeChallenge(id, succeed) {
      const pi = get(id, 'payment_intent');
      if (!pi || pi.status !== 'requires_action') throw new Error(`stub: ${id} is not waiting for a challenge`);
      pi.next_action = null;
      if (succeed) authorize(pi);
      else {
        pi.status = 'requires_payment_method';
        pi.last_payment_error = { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication.' };
      }
    },
    find(method, path) {
      return requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path)));
    },
    clearRequests() {
      requests.length = 0;
      overrides.length = 0;
    },
    async stop() {
      for (const release of hanging) release();
      hanging.clear();
      await server.stop(true);
    },
  };
}

/** Path segments that are not object ids. */
const ROUTE_WORDS = new Set(['search', 'attach', 'detach', 'capture', 'cancel', 'cards', 'cardholders', 'verify_microdeposits']);

/** An object as the API shows it: without the emulation's private fields (`_number`, `_cvc`). */
function publicView(o: Json): Json {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('_')));
}

function luhn(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|65)/.test(number)) return 'discover';
  return 'unknown';
}
