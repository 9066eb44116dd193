import type { ApiFailure, PageInfo, PageInfoRequest, PopupRequest, Result } from '../lib/protocol';

/** A request to the background (lib/protocol.ts PopupRequest); the answer's type is the caller's to name. */
export function ask<T>(request: PopupRequest): Promise<T> {
  return chrome.runtime.sendMessage<PopupRequest, T>(request);
}

/** A request whose answer is a Result; a lost background (updating, crashed) reads as no answer (status 0). */
export async function askResult<T>(request: PopupRequest): Promise<Result<T>> {
  try {
    const answer = await ask<Result<T> | undefined>(request);
    return answer ?? { ok: false, error: noAnswer() };
  } catch (error) {
    return { ok: false, error: { ...noAnswer(), message: error instanceof Error ? error.message : noAnswer().message } };
  }
}

function noAnswer(): ApiFailure {
  return { status: 0, code: null, message: 'No answer from the extension.' };
}

/**
 * The tab the popup is about: `?tab=` when the background opened it in a window (the banner's fallback), else the
 * active tab of the current window (the toolbar button). Ids only: the popup needs no "tabs" permission.
 */
export async function targetTab(): Promise<number | null> {
  const fromUrl = Number(new URLSearchParams(location.search).get('tab'));
  if (Number.isInteger(fromUrl) && fromUrl > 0) return fromUrl;
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return typeof tab?.id === 'number' && tab.id >= 0 ? tab.id : null;
}

/** What the tab's top frame detects now; null when no content script answers (a browser page, or not reloaded). */
export async function pageInfo(tabId: number): Promise<PageInfo | null> {
  try {
    const info = await chrome.tabs.sendMessage<PageInfoRequest, PageInfo | undefined>(tabId, { type: 'page-info' }, { frameId: 0 });
    return info ?? null;
  } catch {
    return null;
  }
}
