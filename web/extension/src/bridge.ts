import { startBridge } from './lib/bridge';
import { currentOrigin } from './lib/config';
import type { PairAnswer, PairRequest } from './lib/protocol';

/* Content script on <bpay origin>/extension/connect* only (manifest, or registered by the options page). */
void startBridge({
  win: window,
  version: chrome.runtime.getManifest().version,
  isConfiguredOrigin: async (origin) => origin === (await currentOrigin()),
  pair: (code) => chrome.runtime.sendMessage<PairRequest, PairAnswer>({ type: 'pair', code }),
});
