import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLanguage } from '../../i18n';
import { updateProfileRequest, USER_QUERY_KEY, type User } from './api';

/*
 * The account keeps the language bpay writes to the person in (mail, notices, the texts bpay makes). What a person
 * expects: the switch they just used wins and is saved; a browser keeps the language chosen in it; a new browser
 * starts in the account's. So, while signed in: a choice made in this visit (the switch, an Arabic page opened, even
 * before signing in) is saved to the account when it differs; a language this browser remembers from an earlier
 * visit stays on screen and is not pushed to the account (the account may have changed since, elsewhere); with
 * neither, the account's language is adopted. Registering sends the language in the request itself.
 */
export function LanguageSync({ user }: { user: User | null }) {
  const { lang, chosen, remembered, adoptLanguage } = useLanguage();
  const qc = useQueryClient();
  // The last language this component asked the server for: no repeat while the answer is on its way or after a failure.
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (!user || user.language === lang) return;
    if (!chosen) {
      if (!remembered) adoptLanguage(user.language);
      return;
    }
    const key = `${user.id}:${lang}`;
    if (asked.current === key) return;
    asked.current = key;
    updateProfileRequest({ language: lang })
      .then((updated) => qc.setQueryData(USER_QUERY_KEY, updated))
      // Not saved (offline, signed out meanwhile): the screen keeps the choice; the next switch or sign-in tries again.
      .catch(() => undefined);
  }, [user, lang, chosen, remembered, adoptLanguage, qc]);
  return null;
}
