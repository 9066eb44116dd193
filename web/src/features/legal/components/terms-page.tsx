import { TERMS } from '../documents';
import { LegalLayout } from './legal-layout';

/** /terms-conditions */
export function TermsPage() {
  return <LegalLayout doc={TERMS} />;
}
