/*
 * A shop on another origin, for the browser extension's end-to-end test (issue 24). It plays an ordinary web shop
 * that has never heard of bpay: a checkout page whose card fields live in a cross-origin iframe served by a third
 * origin (as a payment processor's hosted fields are), and a server that charges the card through bpay's simulated
 * card network (POST /api/simulator/authorizations), as the shop's processor would. A product page is its
 * non-checkout page. Node's http (the Playwright runner is Node): no dependencies.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface TestShop {
  /** The shop's pages and its order endpoint. */
  origin: string;
  /** Where the card iframe comes from (another origin: a port of its own). */
  frameOrigin: string;
  /** Orders the shop's server sent to the network, with bpay's answer (never the card number). */
  orders: Array<{ amount: number; approved: boolean; declineCode: string | null }>;
  stop(): Promise<void>;
}

export const SHOP_NAME = 'Test Shop of Springfield';
/** The order total the checkout page shows (cents). */
export const SHOP_TOTAL_CENTS = 4250;

const page = (title: string, body: string, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>${head}
<style>body{font-family:system-ui,sans-serif;margin:0;padding:24px;max-width:960px}main{display:grid;grid-template-columns:1fr 280px;gap:24px}
aside{border:1px solid #ddd;border-radius:8px;padding:16px}iframe{border:1px solid #ccc;border-radius:6px;width:100%;height:190px}
label{display:block;margin:8px 0 4px}input{padding:8px;width:100%;box-sizing:border-box}button{margin-top:16px;padding:12px 20px}</style>
</head><body>${body}</body></html>`;

function checkoutPage(frameOrigin: string): string {
  return page(
    'Checkout – Test Shop',
    `<header><h1>Checkout</h1></header>
<main>
  <section>
    <h2>Shipping</h2>
    <label for="ship-name">Full name</label><input id="ship-name" name="name" autocomplete="name" value="Ada Lovelace">
    <label for="ship-address">Address</label><input id="ship-address" name="address" autocomplete="street-address" value="1 Main St">
    <h2>Payment</h2>
    <iframe id="card-frame" title="Secure card payment" src="${frameOrigin}/card-frame"></iframe>
    <!-- What a skimming page would plant: card fields nobody can see, in the page and in a frame with no room. -->
    <input id="hidden-cc" name="cardnumber" autocomplete="cc-number" style="display:none">
    <iframe id="hidden-frame" title="" src="${frameOrigin}/card-frame" style="width:1px;height:1px;border:0;position:absolute;left:-9999px"></iframe>
    <button id="place-order" type="button">Place order</button>
    <p id="order-status" role="status" aria-live="polite"></p>
  </section>
  <aside>
    <h2>Order summary</h2>
    <p>Running shoes × 1 <span>$40.00</span></p>
    <p>Shipping <span>$2.50</span></p>
    <p class="order-total"><strong>Order total</strong> <strong id="order-total">$42.50</strong></p>
  </aside>
</main>
<script>
  const frame = document.getElementById('card-frame');
  const status = document.getElementById('order-status');
  document.getElementById('place-order').addEventListener('click', () => {
    status.textContent = 'Processing…';
    frame.contentWindow.postMessage({ type: 'collect' }, ${JSON.stringify(frameOrigin)});
  });
  window.addEventListener('message', async (e) => {
    if (e.origin !== ${JSON.stringify(frameOrigin)} || e.data?.type !== 'card') return;
    const res = await fetch('/order', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ card: e.data.card }) });
    const out = await res.json();
    status.textContent = out.ok ? 'Order confirmed' : 'Payment declined: ' + out.message;
  });
</script>`,
  );
}

/** The card iframe: a processor's hosted fields, React-style (values read from state set by input events only). */
const cardFrame = (shopOrigin: string) =>
  page(
    'Card',
    `<form id="card-form" autocomplete="on">
  <label for="cc-number">Card number</label><input id="cc-number" name="cardnumber" autocomplete="cc-number" inputmode="numeric" placeholder="1234 1234 1234 1234">
  <label for="cc-exp">Expiry (MM / YY)</label><input id="cc-exp" name="exp-date" autocomplete="cc-exp" placeholder="MM / YY" maxlength="7">
  <label for="cc-csc">Security code</label><input id="cc-csc" name="cvc" autocomplete="cc-csc" inputmode="numeric" placeholder="CVC" maxlength="4">
  <label for="cc-name">Name on card</label><input id="cc-name" name="ccname" autocomplete="cc-name">
</form>
<script>
  // Like a React-controlled form: the state changes only through input events, never by reading .value later.
  const state = {};
  for (const el of document.querySelectorAll('input')) el.addEventListener('input', () => { state[el.id] = el.value; });
  window.addEventListener('message', (e) => {
    if (e.origin !== ${JSON.stringify(shopOrigin)} || e.data?.type !== 'collect') return;
    const [mm, yy] = String(state['cc-exp'] ?? '').split('/').map((s) => s.trim());
    parent.postMessage({ type: 'card', card: {
      number: String(state['cc-number'] ?? '').replace(/\\s/g, ''), exp_month: Number(mm), exp_year: 2000 + Number(yy),
      cvc: state['cc-csc'] ?? '', name: state['cc-name'] ?? '' } }, ${JSON.stringify(shopOrigin)});
  });
</script>`,
  );

const productPage = () =>
  page(
    'Running shoes – Test Shop',
    `<h1>Running shoes</h1><p>Light, fast and comfortable.</p><p class="price">$40.00</p>
<button type="button">Add to cart</button><p>Free returns within 30 days.</p>`,
  );

function readJson(req: IncomingMessage): Promise<any> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.on('data', (c) => {
      data += c;
      if (data.length > 16_384) reject(new Error('too large'));
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(data || '{}'));
      } catch (e) {
        reject(e);
      }
    });
  });
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

/** Starts the shop on `port` and its card frame on `port + 1` (127.0.0.1), charging through bpay at `bpayOrigin`. */
export async function startTestShop(bpayOrigin: string, port: number): Promise<TestShop> {
  const origin = `http://127.0.0.1:${port}`;
  const frameOrigin = `http://127.0.0.1:${port + 1}`;
  const orders: TestShop['orders'] = [];
  const send = (res: ServerResponse, status: number, type: string, body: string) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(body);
  };
  const shop = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (req.method === 'GET' && path === '/checkout') return send(res, 200, 'text/html; charset=utf-8', checkoutPage(frameOrigin));
    if (req.method === 'GET' && path === '/product') return send(res, 200, 'text/html; charset=utf-8', productPage());
    if (req.method === 'POST' && path === '/order') {
      try {
        const { card } = await readJson(req);
        // The shop's processor sends the authorization through the card network to the card's issuer: bpay.
        const answer = await fetch(`${bpayOrigin}/api/simulator/authorizations`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            card_number: card.number,
            exp_month: card.exp_month,
            exp_year: card.exp_year,
            cvc: card.cvc,
            amount: SHOP_TOTAL_CENTS,
            currency: 'usd',
            merchant: { name: SHOP_NAME, url: `${origin}/checkout`, city: 'Springfield', category: 'shoe_stores' },
          }),
        });
        const body = (await answer.json()) as any;
        const approved = answer.status === 201 && body.approved === true;
        orders.push({ amount: SHOP_TOTAL_CENTS, approved, declineCode: approved ? null : (body.error?.decline_code ?? null) });
        return send(res, 200, 'application/json', JSON.stringify(approved ? { ok: true, id: body.id } : { ok: false, message: body.error?.message ?? 'declined' }));
      } catch {
        return send(res, 400, 'application/json', JSON.stringify({ ok: false, message: 'bad order' }));
      }
    }
    send(res, 404, 'text/plain', 'not found');
  });
  const frame = createServer((req, res) => {
    const path = new URL(req.url ?? '/', frameOrigin).pathname;
    if (req.method === 'GET' && path === '/card-frame') return send(res, 200, 'text/html; charset=utf-8', cardFrame(origin));
    send(res, 404, 'text/plain', 'not found');
  });
  await listen(shop, port);
  await listen(frame, port + 1);
  return {
    origin,
    frameOrigin,
    orders,
    stop: () =>
      new Promise<void>((resolve) => {
        shop.closeAllConnections();
        frame.closeAllConnections();
        shop.close(() => frame.close(() => resolve()));
      }),
  };
}
