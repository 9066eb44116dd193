import { describe, expect, test } from 'bun:test';
import { browserLabel, browserParts, MAX_LABEL_LENGTH, type BrowserParts, type UserAgentData } from './browser-label';

/* Real User-Agent strings and Client Hints, as each browser sends them. */
const UA = {
  chromeLinux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  chromeOs: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
  edgeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70',
  operaMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0',
  vivaldiLinux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Vivaldi/7.0.3495.18',
  samsung: 'Mozilla/5.0 (Linux; Android 13; SM-S901B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  firefoxIos: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  headless: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36',
};

const brands = (...names: string[]): UserAgentData['brands'] => names.map((brand) => ({ brand, version: '131' }));

describe('browserParts', () => {
  const cases: Array<{ name: string; ua: string; hints?: UserAgentData | null; expected: BrowserParts }> = [
    { name: 'Chrome on Linux', ua: UA.chromeLinux, expected: { browser: 'Chrome', os: 'Linux' } },
    { name: 'Chrome on Windows', ua: UA.chromeWindows, expected: { browser: 'Chrome', os: 'Windows' } },
    { name: 'Chrome on macOS', ua: UA.chromeMac, expected: { browser: 'Chrome', os: 'macOS' } },
    { name: 'Chrome on Android (its string also says Linux)', ua: UA.chromeAndroid, expected: { browser: 'Chrome', os: 'Android' } },
    { name: 'Chrome on ChromeOS (its string also says X11)', ua: UA.chromeOs, expected: { browser: 'Chrome', os: 'ChromeOS' } },
    { name: 'Chrome on iOS (CriOS, "like Mac OS X")', ua: UA.chromeIos, expected: { browser: 'Chrome', os: 'iOS' } },
    { name: 'Edge, whose string also says Chrome', ua: UA.edgeWindows, expected: { browser: 'Edge', os: 'Windows' } },
    { name: 'Opera', ua: UA.operaMac, expected: { browser: 'Opera', os: 'macOS' } },
    { name: 'Vivaldi', ua: UA.vivaldiLinux, expected: { browser: 'Vivaldi', os: 'Linux' } },
    { name: 'Samsung Internet', ua: UA.samsung, expected: { browser: 'Samsung Internet', os: 'Android' } },
    { name: 'Firefox on Linux', ua: UA.firefoxLinux, expected: { browser: 'Firefox', os: 'Linux' } },
    { name: 'Firefox on Windows', ua: UA.firefoxWindows, expected: { browser: 'Firefox', os: 'Windows' } },
    { name: 'Firefox on iOS', ua: UA.firefoxIos, expected: { browser: 'Firefox', os: 'iOS' } },
    { name: 'Safari on macOS', ua: UA.safariMac, expected: { browser: 'Safari', os: 'macOS' } },
    { name: 'Safari on iPhone', ua: UA.safariIphone, expected: { browser: 'Safari', os: 'iOS' } },
    { name: 'headless Chromium', ua: UA.headless, expected: { browser: 'Chromium', os: 'Linux' } },
    {
      name: "Brave: its string is Chrome's, its hints name it",
      ua: UA.chromeWindows,
      hints: { brands: brands('Brave', 'Chromium', 'Not?A_Brand'), platform: 'Windows' },
      expected: { browser: 'Brave', os: 'Windows' },
    },
    {
      name: 'Edge from its hints, before the frozen string',
      ua: UA.chromeWindows,
      hints: { brands: brands('Microsoft Edge', 'Chromium', 'Not A(Brand'), platform: 'Windows' },
      expected: { browser: 'Edge', os: 'Windows' },
    },
    {
      name: "Chrome's hints; the platform comes from the hints (a frozen string on macOS says Intel 10_15_7)",
      ua: UA.chromeMac,
      hints: { brands: brands('Google Chrome', 'Chromium', 'Not_A Brand'), platform: 'macOS' },
      expected: { browser: 'Chrome', os: 'macOS' },
    },
    {
      name: "a distribution's Chromium: hints name only Chromium, the string says Chrome",
      ua: UA.chromeLinux,
      hints: { brands: brands('Chromium', 'Not?A_Brand'), platform: 'Linux' },
      expected: { browser: 'Chromium', os: 'Linux' },
    },
    {
      name: "Chrome OS's hint platform",
      ua: UA.chromeOs,
      hints: { brands: brands('Google Chrome', 'Chromium'), platform: 'Chrome OS' },
      expected: { browser: 'Chrome', os: 'ChromeOS' },
    },
    {
      name: 'an unknown hint platform falls back to the string',
      ua: UA.chromeLinux,
      hints: { brands: brands('Google Chrome'), platform: 'Fuchsia' },
      expected: { browser: 'Chrome', os: 'Linux' },
    },
    { name: 'nothing known', ua: 'curl/8.5.0', expected: { browser: null, os: null } },
    { name: 'an empty string', ua: '', hints: null, expected: { browser: null, os: null } },
  ];
  for (const c of cases) test(c.name, () => expect(browserParts(c.ua, c.hints)).toEqual(c.expected));
});

describe('browserLabel', () => {
  const en = (browser: string, os: string) => `${browser} on ${os}`;
  const ar = (browser: string, os: string) => `${browser} على ${os}`;

  test('both parts through the template, in the reader\'s language', () => {
    expect(browserLabel({ browser: 'Chrome', os: 'Linux' }, en, 'Web browser')).toBe('Chrome on Linux');
    expect(browserLabel({ browser: 'Chrome', os: 'Linux' }, ar, 'متصفح ويب')).toBe('Chrome على Linux');
  });

  test('one part alone when the other is unknown; the fallback when neither is', () => {
    expect(browserLabel({ browser: 'Firefox', os: null }, en, 'Web browser')).toBe('Firefox');
    expect(browserLabel({ browser: null, os: 'Windows' }, en, 'Web browser')).toBe('Windows');
    expect(browserLabel({ browser: null, os: null }, en, 'Web browser')).toBe('Web browser');
  });

  test('never longer than the API accepts', () => {
    const label = browserLabel({ browser: 'B'.repeat(70), os: 'O'.repeat(70) }, en, 'x');
    expect(label.length).toBe(MAX_LABEL_LENGTH);
  });

  test('every real browser above gets a label with both parts', () => {
    for (const ua of Object.values(UA)) expect(browserLabel(browserParts(ua), en, 'Web browser')).toMatch(/^[\w ]+ on \w+$/);
  });
});
