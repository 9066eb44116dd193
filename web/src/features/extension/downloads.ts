/** Where the site serves the extension's zip (`bun run build:extension` copies it into the web build's downloads/). */
export const EXTENSION_ZIP_NAME = 'bpay-extension.zip';
export const EXTENSION_ZIP_HREF = `/downloads/${EXTENSION_ZIP_NAME}`;
/** The folder the zip unpacks to. */
export const EXTENSION_FOLDER_NAME = 'bpay-extension';

/** The public page about the extension, in the reader's language. */
export const extensionPagePath = (lang: 'en' | 'ar') => (lang === 'ar' ? '/extension-ar' : '/extension');
export const CONNECT_PATH = '/extension/connect';
