import { createTransport } from 'nodemailer';

/*
 * How a message leaves the process: SMTP through nodemailer. The worker (worker.ts) is the only caller; requests
 * never wait on a mail server, they write to the outbox.
 */

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  /**
   * The Message-ID header (`<outbox row id@host>`): the same for every send of one outbox row, so a message sent again
   * after a crash (the server accepted it, the process died before recording that) is the same message to the
   * receiver, as a webhook event keeps its id (issue 27).
   */
  messageId?: string;
}

export interface MailTransport {
  /** Resolves once the server accepted the message; throws a MailSendError otherwise. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A refused or failed send. `permanent`: the server answered 5xx (no such mailbox, say), a retry would not help. */
export class MailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** How long a connection, greeting and silence may each take before the send counts as failed. */
export const SMTP_TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 60_000 };

/** The error in words for the outbox page and the log: the server's answer when there is one, never credentials. */
function describe(e: unknown): MailSendError {
  const err = e as { response?: string; responseCode?: number; code?: string; message?: string; permanent?: boolean } | null;
  const permanent = err?.permanent === true || (typeof err?.responseCode === 'number' && err.responseCode >= 500);
  const text = (err?.response ?? err?.message ?? String(e)).replace(/\s+/g, ' ').trim().slice(0, 500);
  return new MailSendError(`${err?.code ? `${err.code}: ` : ''}${text || 'The send failed.'}`, permanent);
}

/**
 * An SMTP transport for BPAY_SMTP_URL (smtp://user:pass@host:port, or smtps:// for TLS from the first byte; smtp://
 * upgrades with STARTTLS when the server offers it, and the certificate is checked either way). One connection per
 * message: the outbox sends a few at a time, and a fresh connection never inherits a broken one.
 */
export function smtpTransport(url: string): MailTransport {
  const transporter = createTransport({ url, ...SMTP_TIMEOUTS });
  return {
    async send(m) {
      try {
        await transporter.sendMail({
          from: m.from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          ...(m.html ? { html: m.html } : {}),
          ...(m.messageId ? { messageId: m.messageId } : {}),
        });
      } catch (e) {
        throw describe(e);
      }
    },
    close() {
      transporter.close();
    },
  };
}
