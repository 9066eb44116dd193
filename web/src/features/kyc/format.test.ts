import { describe, expect, test } from 'bun:test';
import { buildKycForm } from './api';
import {
  canLeaveStep1,
  canLeaveStep2,
  dateOfBirthProblem,
  riskBand,
  canSubmit,
  humanize,
  latestVerification,
  mergeFiles,
  progressPercent,
  riskWidth,
  sizeInMb,
  statusBadge,
} from './format';
import type { KycSubmission } from './form';

const empty: KycSubmission = {
  verificationType: '',
  documentType: '',
  documentCountry: '',
  firstName: '',
  lastName: '',
  dateOfBirth: '',
  documentNumber: '',
};

describe('KYC page helpers', () => {
  test.each([
    ['verified', 'kyc.status.verified', 'green'],
    ['pending', 'kyc.status.pending', 'yellow'],
    ['processing', 'kyc.status.processing', 'blue'],
    ['failed', 'kyc.status.failed', 'red'],
    ['requires_input', 'kyc.status.requiresInput', 'yellow'],
    ['archived', 'kyc.status.unknown', 'neutral'],
    [undefined, 'kyc.status.unknown', 'neutral'],
  ] as const)('status %p → %s (%s)', (status, key, tone) => {
    expect(statusBadge(status)).toEqual({ key, tone });
  });

  test('underscores become spaces; absent values are null (N/A)', () => {
    expect(humanize('identity_document')).toBe('identity document');
    expect(humanize('driving_license')).toBe('driving license');
    expect(humanize('passport')).toBe('passport');
    expect(humanize(null)).toBeNull();
    expect(humanize(undefined)).toBeNull();
    expect(humanize('')).toBeNull();
  });

  test('sizes in MB and progress by step', () => {
    expect(sizeInMb(1024 * 1024)).toBe('1.00');
    expect(sizeInMb(1536 * 1024)).toBe('1.50');
    expect(sizeInMb(68)).toBe('0.00');
    expect([1, 2, 3].map(progressPercent)).toEqual([33, 67, 100]);
  });

  test('step guards', () => {
    expect(canLeaveStep1(empty)).toBe(false);
    expect(canLeaveStep1({ ...empty, verificationType: 'selfie', documentType: 'passport' })).toBe(false);
    expect(canLeaveStep1({ ...empty, verificationType: 'selfie', documentType: 'passport', documentCountry: 'FR' })).toBe(true);
    const named = { ...empty, firstName: 'Ada', lastName: 'Lovelace' };
    expect(canLeaveStep2(named)).toBe(false);
    expect(canLeaveStep2({ ...named, firstName: '  ', dateOfBirth: '1990-01-01' })).toBe(false);
    expect(canLeaveStep2({ ...named, dateOfBirth: '1990-01-01' })).toBe(true);
    expect(canSubmit(0, false)).toBe(false);
    expect(canSubmit(1, true)).toBe(false);
    expect(canSubmit(1, false)).toBe(true);
  });

  test('the latest verification and the risk bar width', () => {
    const list = [
      { id: 'a', submittedAt: '2026-01-01T00:00:00Z', status: 'failed' },
      { id: 'b', submittedAt: '2026-02-01T00:00:00Z', status: 'pending' },
    ];
    expect(latestVerification(list)?.id).toBe('b');
    expect(latestVerification([])).toBeUndefined();
    expect(riskWidth(20)).toBe(20);
    expect(riskWidth(140)).toBe(100);
    expect(riskWidth(null)).toBeNull();
  });

  test('files: repeats are skipped; the form has one documents entry per file and no empty number', () => {
    const a = new File(['a'], 'a.png', { lastModified: 1 });
    const b = new File(['bb'], 'b.pdf', { lastModified: 2 });
    expect(mergeFiles([a], [a, b]).map((f) => f.name)).toEqual(['a.png', 'b.pdf']);
    const form = buildKycForm(
      { ...empty, verificationType: 'selfie', documentType: 'passport', documentCountry: 'US', firstName: ' Ada ', lastName: 'L', dateOfBirth: '1990-01-01' },
      [a, b],
    );
    expect(form.getAll('documents')).toHaveLength(2);
    expect(form.get('firstName')).toBe('Ada');
    expect(form.has('documentNumber')).toBe(false);
  });
});

describe('step 2: 18 or older, checked before step 3', () => {
  const today = new Date('2026-03-15T10:00:00.000Z');
  test('the day of the 18th birthday is old enough; the day before is not', () => {
    expect(dateOfBirthProblem('2008-03-15', today)).toBeNull();
    expect(dateOfBirthProblem('2008-03-16', today)).toBe('underage');
    expect(dateOfBirthProblem('2010-01-01', today)).toBe('underage');
    expect(dateOfBirthProblem('1970-12-31', today)).toBeNull();
  });
  test('not a real date, or in the future', () => {
    expect(dateOfBirthProblem('2001-02-30', today)).toBe('invalid');
    expect(dateOfBirthProblem('2026-03-16', today)).toBe('invalid');
    expect(dateOfBirthProblem('15/03/2000', today)).toBe('invalid');
    expect(dateOfBirthProblem('', today)).toBe('invalid');
  });
  test('before 1900 is refused (as the server refuses it); 1 January 1900 is taken', () => {
    expect(dateOfBirthProblem('1899-12-31', today)).toBe('before1900');
    expect(dateOfBirthProblem('1890-05-01', today)).toBe('before1900');
    expect(dateOfBirthProblem('1900-01-01', today)).toBeNull();
    expect(canLeaveStep2({ ...empty, firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1899-12-31' }, today)).toBe(false);
  });
  test('Continue needs an adult date of birth', () => {
    const v = { verificationType: 'selfie', documentType: 'passport', documentCountry: 'US', firstName: 'Ada', lastName: 'L', documentNumber: '' } as const;
    expect(canLeaveStep2({ ...v, dateOfBirth: '2008-03-16' }, today)).toBe(false);
    expect(canLeaveStep2({ ...v, dateOfBirth: '2008-03-15' }, today)).toBe(true);
  });
});

describe('risk bands', () => {
  test('0–29 low, 30–69 medium, 70–100 high', () => {
    expect([0, 29, 30, 69, 70, 100].map(riskBand)).toEqual(['low', 'low', 'medium', 'medium', 'high', 'high']);
  });
});
