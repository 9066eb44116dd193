import { useQuery } from '@tanstack/react-query';
import { siteContactQuery } from '../api';

export interface InvestorContact {
  /** The configured address and number; undefined until the server answers (or if it cannot). */
  email?: string;
  phone?: string;
  isPending: boolean;
  isError: boolean;
  /** `mailto:` with the subject, or undefined while the address is unknown. */
  mailHref(subject: string): string | undefined;
  /** `tel:` with the number's digits, or undefined while it is unknown. */
  telHref: string | undefined;
}

/** `mailto:` link with an encoded subject; the address itself is used as configured. */
export function mailtoHref(email: string, subject: string): string {
  return `mailto:${email}?subject=${encodeURIComponent(subject)}`;
}

/** "+1 (555) 010-2025" -> "tel:+15550102025": dialers want only the leading + and digits. */
export function telHrefFor(phone: string): string {
  return `tel:${phone.replace(/[^\d+]/g, '')}`;
}

/** The investor contact from `GET /api/site/contact` (server configuration, read once per visit). */
export function useInvestorContact(): InvestorContact {
  const { data, isPending, isError } = useQuery(siteContactQuery());
  const email = data?.investorEmail || undefined;
  const phone = data?.investorPhone || undefined;
  return {
    email,
    phone,
    isPending,
    isError,
    mailHref: (subject) => (email ? mailtoHref(email, subject) : undefined),
    telHref: phone ? telHrefFor(phone) : undefined,
  };
}
