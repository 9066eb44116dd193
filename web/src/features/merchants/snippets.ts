/*
 * The integration snippets the portal and the dashboard offer. They carry the merchant's real publishable key,
 * and never its secret key: the server-side ones show a placeholder the merchant replaces with their own.
 */

/** A publishable key to show when the user has no merchant account yet. */
export const SAMPLE_PUBLISHABLE_KEY = 'pk_test_sample_51Hx8Y2eZvKYlo2C0123456789';
export const CLIENT_SECRET_PLACEHOLDER = 'pi_..._secret_...';

/** The secret key's placeholder in server-side snippets, in the key's mode. */
export function secretKeyPlaceholder(publishableKey: string): string {
  return publishableKey.startsWith('pk_live_') ? 'sk_live_YOUR_SECRET_KEY' : 'sk_test_YOUR_SECRET_KEY';
}

/** The JavaScript widget: bpay's script and a container holding a payment intent's client secret. */
export function widgetSnippet(bpayOrigin: string, publishableKey: string): string {
  return [
    `<script src="${bpayOrigin}/widget.js" async></script>`,
    '<div data-bpay-checkout',
    `     data-publishable-key="${publishableKey}"`,
    `     data-client-secret="${CLIENT_SECRET_PLACEHOLDER}"></div>`,
    '<script>',
    "  document.addEventListener('bpay:payment', (event) => {",
    '    // event.detail: { paymentIntentId, status }. Fulfil the order from the payment_intent.succeeded webhook.',
    '    console.log(event.detail);',
    '  });',
    '</script>',
  ].join('\n');
}

/** Creating a payment intent from the merchant's server with curl (the API takes JSON and a Bearer secret key). */
export function curlSnippet(bpayOrigin: string, publishableKey: string): string {
  return [
    `curl ${bpayOrigin}/api/v1/payment_intents \\`,
    `  -H "Authorization: Bearer ${secretKeyPlaceholder(publishableKey)}" \\`,
    '  -H "Content-Type: application/json" \\',
    '  -H "Idempotency-Key: order-1001" \\',
    `  -d '{"amount": 2000, "currency": "usd", "description": "Order #1001", "metadata": {"order_id": "1001"}}'`,
  ].join('\n');
}

/** The same from Node (18 or later, built-in fetch), passing the client secret to the page. */
export function nodeSnippet(bpayOrigin: string, publishableKey: string): string {
  return [
    '// Server side only: the secret key never goes to the browser.',
    `const BPAY_SECRET_KEY = process.env.BPAY_SECRET_KEY; // ${secretKeyPlaceholder(publishableKey)}`,
    '',
    `const res = await fetch('${bpayOrigin}/api/v1/payment_intents', {`,
    "  method: 'POST',",
    '  headers: {',
    '    Authorization: `Bearer ${BPAY_SECRET_KEY}`,',
    "    'Content-Type': 'application/json',",
    "    'Idempotency-Key': crypto.randomUUID(),",
    '  },',
    "  body: JSON.stringify({ amount: 2000, currency: 'usd', description: 'Order #1001' }),",
    '});',
    'const paymentIntent = await res.json();',
    '',
    '// Render it into your checkout page:',
    `// <div data-bpay-checkout data-publishable-key="${publishableKey}"`,
    '//      data-client-secret="${paymentIntent.client_secret}"></div>',
  ].join('\n');
}
