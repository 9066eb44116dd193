import { useQuery, useQueryClient } from '@tanstack/react-query';

import { useEffect, useState } from 'react';
import { Card, CardContent } from '../../../components/ui/card';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { KYC_STATUS_QUERY_KEY, kycStatusQuery, submitKycRequest } from '../api';
import { latestVerification } from '../format';
import type { ReadyKycSubmission } from '../form';
import { KycStatusView } from './kyc-status-view';
import { KycWizard } from './kyc-wizard';
import { TitledPage } from '../../../components/ui/titled-page';

/**
 * /kyc-verification (spec §2): the latest verification's status when there is one, else the wizard. 'Submit New
 * Verification' (failed) and a successful submission keep the wizard on screen until the user asks for the status.
 */
export function KycVerificationPage() {
  const { t } = useLanguage();
  const queryClient = useQueryClient();
  const status = useQuery(kycStatusQuery());
  const [wizard, setWizard] = useState(false);
  // A new wizard each time it is opened, so a restart begins at step 1 with empty fields.
  const [wizardRun, setWizardRun] = useState(0);

  useEffect(() => {
    if (status.isError) toast({ title: t('kyc.toast.statusFailed'), description: messageOf(status.error), variant: 'destructive' });
    // Only when the failure first shows, not on every language switch.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [status.isError, status.error]);

  async function submit(values: ReadyKycSubmission, files: File[]) {
    try {
      await submitKycRequest(values, files);
    } catch (error) {
      toast({ title: t('kyc.toast.submitFailed'), description: messageOf(error), variant: 'destructive' });
      throw error;
    }
    toast({ title: t('kyc.toast.submitted'), description: t('kyc.toast.submittedDescription') });
    // Keep the wizard (now on its step-4 confirmation) on screen when the refreshed status arrives.
    setWizard(true);
    await queryClient.invalidateQueries({ queryKey: KYC_STATUS_QUERY_KEY });
  }

  const latest = latestVerification(status.data?.verifications);
  let body;
  if (status.isPending && !wizard) {
    body = (
      <Card>
        <CardContent className="p-6 text-sm text-slate-600" aria-busy="true">
          {t('kyc.loading')}
        </CardContent>
      </Card>
    );
  } else if (latest && !wizard) {
    body = (
      <KycStatusView
        verification={latest}
        onSubmitNew={() => {
          setWizardRun((n) => n + 1);
          setWizard(true);
        }}
      />
    );
  } else {
    body = <KycWizard key={wizardRun} submit={submit} onViewStatus={() => setWizard(false)} />;
  }

  return (
    <TitledPage back={{ label: t('kyc.backToDashboard'), testId: 'kyc-back-home' }} title={t('kyc.title')} subtitle={t('kyc.subtitle')} width="narrow">
      {body}
    </TitledPage>
  );
}
