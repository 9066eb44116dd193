/** Client-side checks that mirror the API's (the server is the authority; these give instant feedback). */
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const isEmail = (s: string) => EMAIL_RE.test(s.trim());
