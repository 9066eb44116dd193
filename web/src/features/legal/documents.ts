import type { MessageKey } from '../../i18n';

/** A legal document as data: its texts are catalogue keys, so both languages share one structure. */
export interface LegalSection {
  /** The section's anchor (`#eligibility`). */
  id: string;
  title: MessageKey;
  paragraphs: MessageKey[];
}

export interface LegalDocument {
  path: string;
  title: MessageKey;
  summary: MessageKey;
  /** ISO date for <time dateTime>; the shown text is `legal.lastUpdatedDate`. */
  updated: string;
  sections: LegalSection[];
}

const UPDATED = '2025-01-01';

export const TERMS: LegalDocument = {
  path: '/terms-conditions',
  title: 'legal.terms.title',
  summary: 'legal.terms.summary',
  updated: UPDATED,
  sections: [
    {
      id: 'introduction',
      title: 'legal.terms.introduction.title',
      paragraphs: ['legal.terms.introduction.p1', 'legal.terms.introduction.p2'],
    },
    {
      id: 'eligibility',
      title: 'legal.terms.eligibility.title',
      paragraphs: ['legal.terms.eligibility.p1', 'legal.terms.eligibility.p2'],
    },
    {
      id: 'service-description',
      title: 'legal.terms.service.title',
      paragraphs: ['legal.terms.service.p1', 'legal.terms.service.p2', 'legal.terms.service.p3'],
    },
    { id: 'fees', title: 'legal.terms.fees.title', paragraphs: ['legal.terms.fees.p1', 'legal.terms.fees.p2'] },
    {
      id: 'refunds-disputes',
      title: 'legal.terms.refunds.title',
      paragraphs: ['legal.terms.refunds.p1', 'legal.terms.refunds.p2', 'legal.terms.refunds.p3'],
    },
    {
      id: 'limitations',
      title: 'legal.terms.limitations.title',
      paragraphs: ['legal.terms.limitations.p1', 'legal.terms.limitations.p2'],
    },
    {
      id: 'liability',
      title: 'legal.terms.liability.title',
      paragraphs: ['legal.terms.liability.p1', 'legal.terms.liability.p2'],
    },
    {
      id: 'termination',
      title: 'legal.terms.termination.title',
      paragraphs: ['legal.terms.termination.p1', 'legal.terms.termination.p2'],
    },
  ],
};

export const PRIVACY: LegalDocument = {
  path: '/privacy-policy',
  title: 'legal.privacy.title',
  summary: 'legal.privacy.summary',
  updated: UPDATED,
  sections: [
    {
      id: 'data-collected',
      title: 'legal.privacy.collected.title',
      paragraphs: ['legal.privacy.collected.p1', 'legal.privacy.collected.p2', 'legal.privacy.collected.p3'],
    },
    { id: 'use', title: 'legal.privacy.use.title', paragraphs: ['legal.privacy.use.p1', 'legal.privacy.use.p2'] },
    {
      id: 'sharing',
      title: 'legal.privacy.sharing.title',
      paragraphs: ['legal.privacy.sharing.p1', 'legal.privacy.sharing.p2'],
    },
    {
      id: 'retention-security',
      title: 'legal.privacy.retention.title',
      paragraphs: ['legal.privacy.retention.p1', 'legal.privacy.retention.p2'],
    },
    { id: 'rights', title: 'legal.privacy.rights.title', paragraphs: ['legal.privacy.rights.p1', 'legal.privacy.rights.p2'] },
  ],
};

export const DISCLAIMERS: LegalDocument = {
  path: '/legal-disclaimers',
  title: 'legal.disclaimers.title',
  summary: 'legal.disclaimers.summary',
  updated: UPDATED,
  sections: [
    { id: 'no-financial-advice', title: 'legal.disclaimers.advice.title', paragraphs: ['legal.disclaimers.advice.p1'] },
    {
      id: 'card-use',
      title: 'legal.disclaimers.cards.title',
      paragraphs: ['legal.disclaimers.cards.p1', 'legal.disclaimers.cards.p2'],
    },
    { id: 'third-parties', title: 'legal.disclaimers.thirdParties.title', paragraphs: ['legal.disclaimers.thirdParties.p1'] },
    { id: 'downtime', title: 'legal.disclaimers.downtime.title', paragraphs: ['legal.disclaimers.downtime.p1'] },
    { id: 'regulatory-model', title: 'legal.disclaimers.regulatory.title', paragraphs: ['legal.disclaimers.regulatory.p1'] },
    { id: 'kyc-aml', title: 'legal.disclaimers.kyc.title', paragraphs: ['legal.disclaimers.kyc.p1'] },
    { id: 'transaction-controls', title: 'legal.disclaimers.controls.title', paragraphs: ['legal.disclaimers.controls.p1'] },
    {
      id: 'platform-independence',
      title: 'legal.disclaimers.independence.title',
      paragraphs: ['legal.disclaimers.independence.p1'],
    },
  ],
};

/** All three, in the order the footer lists them. */
export const LEGAL_DOCUMENTS: LegalDocument[] = [TERMS, PRIVACY, DISCLAIMERS];
