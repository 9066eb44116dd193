/*
 * The name a connected browser goes by in Settings → Connected browsers ("Chrome on Linux"), read from what the
 * browser says of itself. User-Agent Client Hints (navigator.userAgentData) come first where the browser has them:
 * Chromium freezes its User-Agent string, and Brave's string is Chrome's. The string is the fallback (Firefox,
 * Safari). Order matters in the string: Edge, Opera, Vivaldi and Samsung Internet all also say "Chrome", and Chrome
 * also says "Safari".
 */

/** The part of navigator.userAgentData we read (Chromium only; not in TypeScript's DOM types). */
export interface UserAgentData {
  brands?: ReadonlyArray<{ brand: string; version?: string }>;
  platform?: string;
  mobile?: boolean;
}

export interface BrowserParts {
  /** "Chrome", "Edge", "Brave", "Firefox"...; null when unknown. */
  browser: string | null;
  /** "Linux", "Windows", "macOS", "Android", "iOS", "ChromeOS"; null when unknown. */
  os: string | null;
}

/** Client Hints brands, most specific first; "Chromium" and the GREASE brands ("Not A;Brand") say nothing. */
const HINT_BRANDS: ReadonlyArray<[pattern: RegExp, name: string]> = [
  [/^Microsoft Edge$/i, 'Edge'],
  [/^Brave$/i, 'Brave'],
  [/^Opera$/i, 'Opera'],
  [/^Vivaldi$/i, 'Vivaldi'],
  [/^Samsung Internet$/i, 'Samsung Internet'],
  [/^YaBrowser$/i, 'Yandex'],
  [/^Google Chrome$/i, 'Chrome'],
];

const UA_BROWSERS: ReadonlyArray<[pattern: RegExp, name: string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera|OPiOS)\//, 'Opera'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bYaBrowser\//, 'Yandex'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\bCriOS\//, 'Chrome'],
  [/\bHeadlessChrome\//, 'Chromium'],
  [/\bChrome\//, 'Chrome'],
  [/\bChromium\//, 'Chromium'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

const HINT_PLATFORMS: Readonly<Record<string, string>> = {
  windows: 'Windows',
  macos: 'macOS',
  linux: 'Linux',
  android: 'Android',
  ios: 'iOS',
  'chrome os': 'ChromeOS',
  chromeos: 'ChromeOS',
  'chromium os': 'ChromeOS',
};

const UA_PLATFORMS: ReadonlyArray<[pattern: RegExp, name: string]> = [
  // iPadOS 13+ Safari says "Macintosh"; an iPad keeps saying iPad in the other browsers.
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

function firstMatch(text: string, table: ReadonlyArray<[RegExp, string]>): string | null {
  for (const [pattern, name] of table) if (pattern.test(text)) return name;
  return null;
}

/** The browser and system, from Client Hints first, then the User-Agent string. */
export function browserParts(userAgent: string, hints?: UserAgentData | null): BrowserParts {
  let browser: string | null = null;
  for (const { brand } of hints?.brands ?? []) {
    browser = firstMatch(brand, HINT_BRANDS);
    if (browser) break;
  }
  if (!browser) {
    const fromString = firstMatch(userAgent, UA_BROWSERS);
    // Hints that name only "Chromium" (a Linux distribution's build): its string says "Chrome", but it is not Chrome.
    const onlyChromium = hints?.brands?.some(({ brand }) => /^Chromium$/i.test(brand)) ?? false;
    browser = fromString === 'Chrome' && onlyChromium ? 'Chromium' : fromString;
  }
  const hinted = hints?.platform ? HINT_PLATFORMS[hints.platform.trim().toLowerCase()] : undefined;
  const os = hinted ?? firstMatch(userAgent, UA_PLATFORMS);
  return { browser, os };
}

/** The label's longest length (the API takes 1..80 characters). */
export const MAX_LABEL_LENGTH = 80;

/**
 * "Chrome on Linux", in the reader's language through `template` ("{browser} on {os}"); only the browser or only
 * the system when the other is unknown; `fallback` when neither is.
 */
export function browserLabel(parts: BrowserParts, template: (browser: string, os: string) => string, fallback: string): string {
  const { browser, os } = parts;
  const label = browser && os ? template(browser, os) : (browser ?? os ?? fallback);
  return label.slice(0, MAX_LABEL_LENGTH);
}

/** What this browser says of itself (none while the build prerenders). */
export function currentBrowserParts(): BrowserParts {
  if (typeof navigator === 'undefined') return { browser: null, os: null };
  const hints = (navigator as Navigator & { userAgentData?: UserAgentData }).userAgentData;
  return browserParts(navigator.userAgent, hints);
}
