/*!
 * bpay checkout widget — served as /widget.js.
 *
 * On a merchant's page:
 *   <script src="https://<bpay>/widget.js" async></script>
 *   <div data-bpay-checkout data-client-secret="pi_…_secret_…" data-publishable-key="pk_test_…"></div>
 *
 * The widget reads the payment intent from bpay (a credential-less CORS GET by client secret: public fields only),
 * shows "Pay with bpay" with the amount and the merchant, and opens bpay's checkout page in a popup on bpay's own
 * origin, where the customer's session works first-party. The popup reports success with postMessage; the widget
 * accepts it only from bpay's origin and for its own intent, shows "Payment complete" and dispatches a
 * `bpay:payment` CustomEvent (detail { paymentIntentId, status }) on the container. Fulfil orders from the
 * payment_intent.succeeded webhook, not from this event: a page can always be tampered with by its visitor.
 *
 * Plain ES2017, no dependencies; styles live in a shadow root so the merchant's CSS and ours cannot collide.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  if (!script) {
    // Fallback for loaders that run the file without currentScript: the last script named widget.js.
    var candidates = document.querySelectorAll('script[src*="widget.js"]');
    script = candidates[candidates.length - 1] || null;
  }
  var BPAY_ORIGIN;
  try {
    BPAY_ORIGIN = new URL(script && script.src ? script.src : location.href).origin;
  } catch (e) {
    return;
  }

  var TEXT = {
    en: {
      loading: 'Loading bpay checkout…',
      pay: 'Pay with bpay',
      payTo: 'Pay {amount} to {merchant}',
      split: 'Split across your cards. Single-use bcard.',
      waiting: 'Finish paying in the bpay window…',
      complete: 'Payment complete',
      completeBody: 'Paid {amount} with bpay.',
      popupBlocked: 'Your browser blocked the bpay window. Allow pop-ups for this site and try again.',
      invalid: 'This bpay checkout is not set up correctly (client secret missing or malformed).',
      loadFailed: 'The payment could not be loaded. Please refresh the page.',
      modeMismatch: 'This payment belongs to the other mode than the publishable key (test vs live).',
      notPayable: 'This payment can no longer be paid (status: {status}).',
      test: 'Test mode',
    },
    ar: {
      loading: 'جارٍ تحميل الدفع عبر bpay…',
      pay: 'ادفع باستخدام bpay',
      payTo: 'ادفع {amount} إلى {merchant}',
      split: 'قسّم المبلغ على بطاقاتك. بطاقة bcard لمرة واحدة.',
      waiting: 'أكمل الدفع في نافذة bpay…',
      complete: 'اكتمل الدفع',
      completeBody: 'تم دفع {amount} باستخدام bpay.',
      popupBlocked: 'منع متصفحك نافذة bpay. اسمح بالنوافذ المنبثقة لهذا الموقع وحاول مرة أخرى.',
      invalid: 'لم يُعدّ الدفع عبر bpay بشكل صحيح (المفتاح السري للعميل مفقود أو غير صالح).',
      loadFailed: 'تعذّر تحميل الدفعة. يرجى تحديث الصفحة.',
      modeMismatch: 'هذه الدفعة تنتمي إلى وضع مختلف عن المفتاح القابل للنشر (اختبار أو مباشر).',
      notPayable: 'لم يعد بالإمكان دفع هذه الدفعة (الحالة: {status}).',
      test: 'وضع الاختبار',
    },
  };

  var CSS =
    ':host{all:initial;display:block;font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans Arabic",Tahoma,sans-serif;color:#0f172a}' +
    '.box{box-sizing:border-box;border:1px solid #e2e8f0;border-radius:12px;padding:16px;background:#fff;max-width:420px}' +
    '.row{display:flex;align-items:center;justify-content:space-between;gap:12px;margin-bottom:12px}' +
    '.amount{font-size:20px;font-weight:700;direction:ltr;unicode-bidi:isolate}' +
    '.merchant{font-size:14px;color:#475569;margin:0 0 12px}' +
    '.badge{font-size:11px;font-weight:600;background:#fef9c3;color:#854d0e;border-radius:999px;padding:2px 8px}' +
    'button{all:unset;box-sizing:border-box;display:flex;width:100%;align-items:center;justify-content:center;gap:8px;' +
    'height:44px;border-radius:8px;background:#4f46e5;color:#fff;font-size:15px;font-weight:600;cursor:pointer}' +
    'button:hover{background:#4338ca}button:focus-visible{outline:2px solid #4f46e5;outline-offset:2px}' +
    'button[disabled]{opacity:.6;cursor:default}' +
    '.note{font-size:12px;color:#64748b;margin:8px 0 0}' +
    '.msg{font-size:14px;margin:0}.err{color:#b91c1c}' +
    '.done{display:flex;align-items:center;gap:10px;color:#15803d;font-weight:600;font-size:16px;margin:0}' +
    '.logo{display:inline-flex;align-items:center;justify-content:center;width:20px;height:20px;border-radius:6px;background:#fff;color:#4f46e5;font-weight:800;font-size:13px}';

  function langOf(el) {
    var attr = el.getAttribute('data-locale') || document.documentElement.lang || 'en';
    return attr.toLowerCase().indexOf('ar') === 0 ? 'ar' : 'en';
  }

  /** Fills {name} slots; each value is bidi-isolated so "$49.99" or a Latin name keeps its order in Arabic text. */
  function fill(template, vars) {
    return template.replace(/\{(\w+)\}/g, function (m, k) {
      return Object.prototype.hasOwnProperty.call(vars, k) ? '\u2068' + String(vars[k]) + '\u2069' : m;
    });
  }

  function formatAmount(cents, currency) {
    try {
      return new Intl.NumberFormat('en-US', { style: 'currency', currency: String(currency).toUpperCase() }).format(cents / 100);
    } catch (e) {
      return (cents / 100).toFixed(2) + ' ' + String(currency).toUpperCase();
    }
  }

  /** "pi_123_secret_abc" -> "pi_123". */
  function intentIdOf(clientSecret) {
    var i = clientSecret.indexOf('_secret_');
    if (i <= 0 || !/^pi_[A-Za-z0-9]+$/.test(clientSecret.slice(0, i))) return null;
    return clientSecret.slice(0, i);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  function mount(container) {
    if (!container || container.__bpayMounted) return;
    container.__bpayMounted = true;
    var lang = langOf(container);
    var t = TEXT[lang];
    var root = container.attachShadow ? container.attachShadow({ mode: 'open' }) : container;
    var style = el('style');
    style.textContent = CSS;
    var box = el('div', 'box');
    box.setAttribute('dir', lang === 'ar' ? 'rtl' : 'ltr');
    box.setAttribute('part', 'box');
    root.appendChild(style);
    root.appendChild(box);

    function show(nodes) {
      while (box.firstChild) box.removeChild(box.firstChild);
      for (var i = 0; i < nodes.length; i++) box.appendChild(nodes[i]);
    }
    function showMessage(text, isError) {
      var p = el('p', 'msg' + (isError ? ' err' : ''), text);
      p.setAttribute('role', isError ? 'alert' : 'status');
      show([p]);
      container.setAttribute('data-bpay-state', isError ? 'error' : 'message');
    }

    var clientSecret = (container.getAttribute('data-client-secret') || '').trim();
    var intentId = intentIdOf(clientSecret);
    if (!intentId) return showMessage(t.invalid, true);
    var publishableKey = (container.getAttribute('data-publishable-key') || '').trim();

    showMessage(t.loading, false);
    container.setAttribute('data-bpay-state', 'loading');

    var url = BPAY_ORIGIN + '/api/checkout/payment_intents/' + encodeURIComponent(intentId) + '?client_secret=' + encodeURIComponent(clientSecret);
    fetch(url, { credentials: 'omit', mode: 'cors', headers: { accept: 'application/json' } })
      .then(function (res) {
        if (!res.ok) throw new Error(String(res.status));
        return res.json();
      })
      .then(function (intent) {
        if (publishableKey && /^pk_(test|live)_/.test(publishableKey) && publishableKey.indexOf('pk_live_') === 0 !== !!intent.livemode) {
          return showMessage(t.modeMismatch, true);
        }
        var amount = formatAmount(intent.amount, intent.currency);
        if (intent.status === 'succeeded') return showComplete(amount);
        if (intent.status !== 'requires_payment_method' && intent.status !== 'requires_confirmation') {
          return showMessage(fill(t.notPayable, { status: intent.status }), true);
        }
        showPay(intent, amount);
      })
      .catch(function () {
        showMessage(t.loadFailed, true);
      });

    function showComplete(amount) {
      var done = el('p', 'done');
      done.setAttribute('role', 'status');
      done.appendChild(document.createTextNode('✓ ' + t.complete));
      show([done, el('p', 'note', fill(t.completeBody, { amount: amount }))]);
      container.setAttribute('data-bpay-state', 'complete');
    }

    function showPay(intent, amount) {
      var row = el('div', 'row');
      row.appendChild(el('span', 'amount', amount));
      if (!intent.livemode) row.appendChild(el('span', 'badge', t.test));
      var merchant = el('p', 'merchant', fill(t.payTo, { amount: amount, merchant: intent.merchant && intent.merchant.businessName }));
      var button = el('button');
      button.type = 'button';
      button.setAttribute('part', 'button');
      button.setAttribute('data-bpay-pay', '');
      var logo = el('span', 'logo', 'b');
      logo.setAttribute('aria-hidden', 'true');
      button.appendChild(logo);
      button.appendChild(document.createTextNode(t.pay));
      var note = el('p', 'note', t.split);
      note.setAttribute('aria-live', 'polite');
      show([row, merchant, button, note]);
      container.setAttribute('data-bpay-state', 'ready');

      var popup = null;
      var watch = null;
      var finished = false;

      function onMessage(event) {
        // Only bpay's checkout page may say a payment went through, and only about this intent.
        if (event.origin !== BPAY_ORIGIN) return;
        if (popup && event.source && event.source !== popup) return;
        var data = event.data;
        if (!data || data.type !== 'bpay:payment_succeeded' || data.paymentIntentId !== intent.id) return;
        finished = true;
        window.removeEventListener('message', onMessage);
        if (watch) clearInterval(watch);
        showComplete(amount);
        var detail = { paymentIntentId: data.paymentIntentId, status: data.status };
        var ev;
        try {
          ev = new CustomEvent('bpay:payment', { detail: detail, bubbles: true, composed: true });
        } catch (e) {
          ev = document.createEvent('CustomEvent');
          ev.initCustomEvent('bpay:payment', true, false, detail);
        }
        container.dispatchEvent(ev);
      }

      button.addEventListener('click', function () {
        if (popup && !popup.closed) {
          popup.focus();
          return;
        }
        var target =
          BPAY_ORIGIN +
          '/checkout/pay?client_secret=' +
          encodeURIComponent(clientSecret) +
          '&origin=' +
          encodeURIComponent(location.origin);
        var width = 480;
        var height = 720;
        var left = Math.max(0, (window.screenX || 0) + ((window.outerWidth || width) - width) / 2);
        var top = Math.max(0, (window.screenY || 0) + ((window.outerHeight || height) - height) / 2);
        // Not noopener: the checkout page reports back through window.opener.postMessage.
        popup = window.open(target, 'bpay_checkout_' + intent.id, 'popup=yes,width=' + width + ',height=' + height + ',left=' + left + ',top=' + top);
        if (!popup) {
          note.textContent = t.popupBlocked;
          note.className = 'note err';
          return;
        }
        window.addEventListener('message', onMessage);
        button.disabled = true;
        note.textContent = t.waiting;
        note.className = 'note';
        container.setAttribute('data-bpay-state', 'waiting');
        if (watch) clearInterval(watch);
        watch = setInterval(function () {
          if (!popup || popup.closed) {
            clearInterval(watch);
            watch = null;
            // Give a message sent just before closing the chance to arrive.
            setTimeout(function () {
              if (finished) return;
              window.removeEventListener('message', onMessage);
              button.disabled = false;
              note.textContent = t.split;
              container.setAttribute('data-bpay-state', 'ready');
            }, 300);
          }
        }, 500);
      });
    }
  }

  function mountAll() {
    var nodes = document.querySelectorAll('[data-bpay-checkout]');
    for (var i = 0; i < nodes.length; i++) mount(nodes[i]);
  }

  window.bpayCheckout = { mount: mount, mountAll: mountAll, origin: BPAY_ORIGIN };
  mountAll();
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll);
})();
