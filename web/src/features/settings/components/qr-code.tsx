import { useEffect, useState } from 'react';

/**
 * A QR code of `value` drawn locally (the otpauth secret never leaves the browser for rendering). The QR library is
 * its own chunk, loaded when a code is first drawn (turning two-factor on), not with the dashboard (issue 13 budgets).
 */
export function QrCode({ value, alt, size = 192 }: { value: string; alt: string; size?: number }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    setSrc(null);
    import('qrcode')
      .then(({ default: QRCode }) => QRCode.toDataURL(value, { width: size, margin: 1, errorCorrectionLevel: 'M' }))
      .then((url) => {
        if (!cancelled) setSrc(url);
      })
      .catch(() => {
        // Without a QR code the secret below it is still there to type in.
        if (!cancelled) setSrc(null);
      });
    return () => {
      cancelled = true;
    };
  }, [value, size]);

  return (
    <div
      className="flex items-center justify-center rounded-lg border border-slate-200 bg-white p-2"
      style={{ width: size + 18, height: size + 18 }}
    >
      {src ? (
        <img src={src} alt={alt} width={size} height={size} data-testid="2fa-qr" />
      ) : (
        <div className="h-full w-full animate-pulse rounded bg-slate-100" aria-hidden />
      )}
    </div>
  );
}
