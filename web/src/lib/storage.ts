/** Device-persisted settings. localStorage can throw (private mode, quota): treat that as "nothing saved". */
export function readSetting(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeSetting(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    /* the setting simply does not persist */
  }
}
