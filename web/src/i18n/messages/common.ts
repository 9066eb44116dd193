/** Texts shared by several screens. Every catalogue file exports `en` and an `ar` with exactly the same keys. */
export const en = {
  'common.brand': 'bpay',
  'common.brandHome': 'bpay home',
  'common.loading': 'Loading...',
  'common.cancel': 'Cancel',
  'common.close': 'Close',
  'common.save': 'Save',
  'common.retry': 'Retry',
  'common.backHome': 'Back to Home',
  'common.language.switch': 'العربية',
  'common.language.label': 'Switch language',
  'notFound.title': '404 Page Not Found',
  'notFound.hint': 'Did you forget to add the page to the router?',
} as const;

export const ar: Record<keyof typeof en, string> = {
  'common.brand': 'bpay',
  'common.brandHome': 'الصفحة الرئيسية لـ bpay',
  'common.loading': 'جارٍ التحميل...',
  'common.cancel': 'إلغاء',
  'common.close': 'إغلاق',
  'common.save': 'حفظ',
  'common.retry': 'إعادة المحاولة',
  'common.backHome': 'العودة إلى الرئيسية',
  'common.language.switch': 'English',
  'common.language.label': 'تبديل اللغة',
  'notFound.title': '404 الصفحة غير موجودة',
  'notFound.hint': 'هل نسيت إضافة الصفحة إلى الموجّه؟',
};
