import { PRIVACY } from '../documents';
import { LegalLayout } from './legal-layout';

/** /privacy-policy */
export function PrivacyPage() {
  return <LegalLayout doc={PRIVACY} />;
}
