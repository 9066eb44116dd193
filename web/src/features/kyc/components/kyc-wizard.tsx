import { CheckCircle2, FileText, Upload, X } from 'lucide-react';
import { useId, useRef, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useT, type MessageKey } from '../../../i18n';
import { canLeaveStep1, canLeaveStep2, canSubmit, dateOfBirthProblem, mergeFiles, progressPercent, sizeInMb, TOTAL_STEPS } from '../format';
import { DOCUMENT_COUNTRIES, DOCUMENT_TYPES, VERIFICATION_TYPES, type KycSubmission, type ReadyKycSubmission } from '../form';

const EMPTY: KycSubmission = {
  verificationType: '',
  documentType: '',
  documentCountry: '',
  firstName: '',
  lastName: '',
  dateOfBirth: '',
  documentNumber: '',
};

const selectClass =
  'flex h-10 w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm focus:outline-none focus:ring-2 focus:ring-brand-500';

function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>{label}</Label>
      {children}
    </div>
  );
}

function Choice<T extends string>({
  id,
  label,
  value,
  options,
  optionLabel,
  onChange,
}: {
  id: string;
  label: string;
  value: T | '';
  options: readonly T[];
  optionLabel: (v: T) => string;
  onChange: (v: T | '') => void;
}) {
  const t = useT();
  return (
    <Field id={id} label={label}>
      <select id={id} className={selectClass} value={value} onChange={(e) => onChange(e.target.value as T | '')} data-testid={id}>
        <option value="">{t('kyc.step1.choose')}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {optionLabel(o)}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * The three-step wizard (spec §2, §5) and the step-4 confirmation. `submit` sends the form; it resolves on
 * success (the page shows its toasts) and rejects on failure (the wizard stays on step 3).
 */
export function KycWizard({
  submit,
  onViewStatus,
}: {
  submit: (values: ReadyKycSubmission, files: File[]) => Promise<void>;
  onViewStatus: () => void;
}) {
  const t = useT();
  const uid = useId();
  const [step, setStep] = useState(1);
  const [values, setValues] = useState<KycSubmission>(EMPTY);
  const [files, setFiles] = useState<File[]>([]);
  const [sending, setSending] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const set = <K extends keyof KycSubmission>(key: K, v: KycSubmission[K]) => setValues((old) => ({ ...old, [key]: v }));

  if (step === 4) {
    return (
      <Card data-testid="kyc-step-4">
        <CardHeader className="items-center text-center">
          <CheckCircle2 className="mx-auto h-12 w-12 text-green-600" aria-hidden />
          <CardTitle level={2}>{t('kyc.step4.title')}</CardTitle>
          <CardDescription>{t('kyc.step4.description')}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          <div>
            <h3 className="mb-2 font-semibold text-slate-900">{t('kyc.step4.next')}</h3>
            <ol className="list-decimal space-y-1 ps-5 text-sm text-slate-700">
              <li>{t('kyc.step4.next1')}</li>
              <li>{t('kyc.step4.next2')}</li>
              <li>{t('kyc.step4.next3')}</li>
            </ol>
          </div>
          <div className="flex flex-wrap gap-2">
            <Link href="/" className={buttonClasses('primary')} data-testid="kyc-back-dashboard">
              {t('kyc.backToDashboard')}
            </Link>
            <Button variant="outline" onClick={onViewStatus} data-testid="kyc-view-status">
              {t('kyc.step4.viewStatus')}
            </Button>
          </div>
        </CardContent>
      </Card>
    );
  }

  const titles: Record<number, [MessageKey, MessageKey]> = {
    1: ['kyc.step1.title', 'kyc.step1.description'],
    2: ['kyc.step2.title', 'kyc.step2.description'],
    3: ['kyc.step3.title', 'kyc.step3.description'],
  };
  const [title, description] = titles[step] ?? titles[1]!;
  const percent = progressPercent(step);
  // Checked here on step 2 (the server checks it again): a date only once one is typed completely.
  const dobProblem = values.dateOfBirth.trim() === '' ? null : dateOfBirthProblem(values.dateOfBirth, new Date());

  async function onSubmit() {
    // Step 3 is reached only through step 1, so its choices are made (checked again here for the types).
    if (!canSubmit(files.length, sending) || !canLeaveStep1(values)) return;
    setSending(true);
    try {
      await submit(values, files);
      setStep(4);
    } catch {
      /* the page reported it; stay on step 3 */
    } finally {
      setSending(false);
    }
  }

  return (
    <Card data-testid="kyc-wizard">
      <CardHeader>
        <div className="mb-2 flex items-center justify-between text-sm text-slate-600">
          <span data-testid="kyc-step">{t('kyc.wizard.step', { step, total: TOTAL_STEPS })}</span>
          <span data-testid="kyc-progress">{t('kyc.wizard.progress', { percent })}</span>
        </div>
        <div
          className="mb-4 h-2 w-full overflow-hidden rounded-full bg-slate-200"
          role="progressbar"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          aria-label={t('kyc.wizard.step', { step, total: TOTAL_STEPS })}
        >
          <div className="h-full rounded-full bg-brand-600 transition-all" style={{ width: `${percent}%` }} />
        </div>
        <CardTitle level={2}>{t(title)}</CardTitle>
        <CardDescription>{t(description)}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {step === 1 && (
          <>
            <Choice
              id="kyc-verification-type"
              label={t('kyc.step1.verificationType')}
              value={values.verificationType}
              options={VERIFICATION_TYPES}
              optionLabel={(v) => t(`kyc.value.${v}`)}
              onChange={(v) => set('verificationType', v)}
            />
            <Choice
              id="kyc-document-type"
              label={t('kyc.step1.documentType')}
              value={values.documentType}
              options={DOCUMENT_TYPES}
              optionLabel={(v) => t(`kyc.value.${v}`)}
              onChange={(v) => set('documentType', v)}
            />
            <Choice
              id="kyc-document-country"
              label={t('kyc.step1.country')}
              value={values.documentCountry}
              options={DOCUMENT_COUNTRIES}
              optionLabel={(v) => t(`kyc.country.${v}`)}
              onChange={(v) => set('documentCountry', v)}
            />
            <div className="flex justify-end">
              <Button disabled={!canLeaveStep1(values)} onClick={() => setStep(2)} data-testid="kyc-continue">
                {t('kyc.wizard.continue')}
              </Button>
            </div>
          </>
        )}

        {step === 2 && (
          <>
            <div className="grid gap-4 sm:grid-cols-2">
              <Field id={`${uid}-first`} label={t('kyc.step2.firstName')}>
                <Input id={`${uid}-first`} value={values.firstName} maxLength={100} autoComplete="given-name" onChange={(e) => set('firstName', e.target.value)} data-testid="kyc-first-name" />
              </Field>
              <Field id={`${uid}-last`} label={t('kyc.step2.lastName')}>
                <Input id={`${uid}-last`} value={values.lastName} maxLength={100} autoComplete="family-name" onChange={(e) => set('lastName', e.target.value)} data-testid="kyc-last-name" />
              </Field>
            </div>
            <Field id={`${uid}-dob`} label={t('kyc.step2.dateOfBirth')}>
              <Input
                id={`${uid}-dob`}
                type="date"
                min="1900-01-01"
                value={values.dateOfBirth}
                autoComplete="bday"
                onChange={(e) => set('dateOfBirth', e.target.value)}
                aria-invalid={dobProblem !== null}
                aria-describedby={`${uid}-dob-note`}
                data-testid="kyc-dob"
              />
              {dobProblem ? (
                <p id={`${uid}-dob-note`} role="alert" className="text-xs text-red-600" data-testid="kyc-dob-error">
                  {t(dobProblem === 'underage' ? 'kyc.step2.underage' : dobProblem === 'before1900' ? 'kyc.step2.before1900' : 'kyc.step2.invalidDate')}
                </p>
              ) : (
                <p id={`${uid}-dob-note`} className="text-xs text-slate-500">
                  {t('kyc.step2.adultNote')}
                </p>
              )}
            </Field>
            <Field id={`${uid}-number`} label={t('kyc.step2.documentNumber')}>
              <Input id={`${uid}-number`} value={values.documentNumber} maxLength={50} autoComplete="off" dir="ltr" onChange={(e) => set('documentNumber', e.target.value)} data-testid="kyc-document-number" />
            </Field>
            <div className="flex justify-between">
              <Button variant="outline" onClick={() => setStep(1)} data-testid="kyc-back">
                {t('kyc.wizard.back')}
              </Button>
              <Button disabled={!canLeaveStep2(values)} onClick={() => setStep(3)} data-testid="kyc-continue">
                {t('kyc.wizard.continue')}
              </Button>
            </div>
          </>
        )}

        {step === 3 && (
          <>
            <div className="rounded-md border-2 border-dashed border-slate-300 p-6 text-center">
              <Upload className="mx-auto mb-2 h-8 w-8 text-slate-400" aria-hidden />
              <input
                ref={fileInput}
                id={`${uid}-files`}
                type="file"
                multiple
                accept=".jpg,.jpeg,.png,.pdf,image/jpeg,image/png,application/pdf"
                className="sr-only"
                onChange={(e) => {
                  const picked = Array.from(e.target.files ?? []);
                  setFiles((old) => mergeFiles(old, picked));
                  e.target.value = '';
                }}
                data-testid="kyc-files"
              />
              <Button variant="outline" onClick={() => fileInput.current?.click()}>
                {t('kyc.step3.choose')}
              </Button>
              <p className="mt-2 text-xs text-slate-500">{t('kyc.step3.accepted')}</p>
            </div>
            {files.length === 0 ? (
              <p className="text-sm text-slate-500">{t('kyc.step3.none')}</p>
            ) : (
              <ul className="space-y-2" data-testid="kyc-file-list">
                {files.map((f, i) => (
                  <li key={`${f.name}-${f.size}-${f.lastModified}`} className="flex items-center justify-between gap-2 rounded-md border border-slate-200 p-2 text-sm">
                    <span className="flex min-w-0 items-center gap-2">
                      <FileText className="h-4 w-4 shrink-0 text-slate-400" aria-hidden />
                      <span className="truncate" dir="auto">{f.name}</span>
                    </span>
                    <span className="flex items-center gap-2">
                      <span className="tabular-nums text-slate-500">{t('kyc.step3.fileSize', { size: sizeInMb(f.size) })}</span>
                      <Button
                        variant="ghost"
                        size="sm"
                        aria-label={t('kyc.step3.remove', { name: f.name })}
                        onClick={() => setFiles((old) => old.filter((_, j) => j !== i))}
                        disabled={sending}
                      >
                        <X className="h-4 w-4" aria-hidden />
                      </Button>
                    </span>
                  </li>
                ))}
              </ul>
            )}
            <div className="flex justify-between">
              <Button variant="outline" onClick={() => setStep(2)} disabled={sending} data-testid="kyc-back">
                {t('kyc.wizard.back')}
              </Button>
              <Button disabled={!canSubmit(files.length, sending)} onClick={onSubmit} data-testid="kyc-submit">
                {sending ? t('kyc.step3.submitting') : t('kyc.step3.submit')}
              </Button>
            </div>
          </>
        )}
      </CardContent>
    </Card>
  );
}
