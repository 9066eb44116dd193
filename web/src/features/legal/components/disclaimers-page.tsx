import { DISCLAIMERS } from '../documents';
import { LegalLayout } from './legal-layout';

/** /legal-disclaimers */
export function DisclaimersPage() {
  return <LegalLayout doc={DISCLAIMERS} />;
}
