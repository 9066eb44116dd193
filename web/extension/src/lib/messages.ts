/*
 * The extension's own texts, in the web app's catalogue shape (web/src/i18n/messages/*.ts: `en` as const and an `ar`
 * with exactly the same keys). The popup also registers the web's split and bcards catalogues (the configurator and
 * the per-share progress come from the web app); these are the texts the web app has no use for. The content script
 * imports this module too, so it stays small: plain strings, no code.
 */
export const en = {
  'ext.banner.label': 'bpay',
  'ext.banner.text': 'Split {amount} with bpay',
  'ext.banner.textNoTotal': 'Split this checkout with bpay',
  'ext.banner.split': 'Split',
  'ext.banner.dismiss': 'Do not show on this site again',

  'ext.popup.title': 'Split with bpay',
  'ext.popup.site': 'Site',
  'ext.popup.noPage': 'Open a shop’s checkout page, then open bpay again.',
  'ext.popup.reload': 'Reload this page so bpay can read its checkout, then open bpay again.',
  'ext.popup.notDetected': 'No checkout total was found on this page: enter it below.',
  'ext.popup.loading': 'Loading…',
  'ext.popup.connectIntro':
    'Connect this browser to your bpay account to split a checkout across your cards. You approve it on bpay: the extension never sees your password.',
  'ext.popup.connect': 'Connect to bpay',
  'ext.popup.connectAgain': 'Connect again',
  'ext.popup.disconnected': 'This browser was disconnected from bpay. Connect it again.',
  'ext.popup.connectedAs': 'Connected as {label}',
  'ext.popup.settings': 'Settings',
  'ext.popup.total': 'Total to pay',
  'ext.popup.totalHint': 'What the shop will charge. Check it against the page.',
  'ext.popup.amount.invalid': 'Enter the total, for example 42.50.',
  'ext.popup.amount.decimals': 'Use at most 2 decimals.',
  'ext.popup.amount.minimum': 'The total must be at least $1.00.',
  'ext.popup.amount.maximum': 'The total must be at most $1,000,000.00.',
  'ext.popup.currency': 'bpay cards are in US dollars; this page shows {currency}.',
  'ext.popup.presets': 'Presets',
  'ext.popup.preset.default': 'Your default split',
  'ext.popup.preset.even': 'Even split',
  'ext.popup.preset.one': 'One card: {name}',
  'ext.popup.sources.loading': 'Loading your funding sources…',
  'ext.popup.sources.none': 'You have no active funding source. Add a card or a bank account in bpay first.',
  'ext.popup.retry': 'Retry',
  'ext.popup.submit': 'Create bcard and fill',
  'ext.popup.submitting': 'Creating your bcard…',
  'ext.popup.filling': 'Filling the card into the page…',
  'ext.popup.result.card': 'bcard {last4} for {amount}',
  'ext.popup.result.filled': 'Filled. Check the details on the page, then place your order.',
  'ext.popup.result.noFields':
    'Your bcard is ready, but no card fields were found on the page. Go to the payment step, then press Fill again.',
  'ext.popup.result.fillFailed': 'Your bcard is ready, but it could not be filled: {message}',
  'ext.popup.result.siteChanged': 'this tab no longer shows the site the bcard was made for. Go back to its checkout and fill again.',
  'ext.popup.fillAgain': 'Fill again',
  'ext.popup.failed': 'No bcard was made: {message}',
  'ext.popup.network': 'bpay could not be reached. Check your connection and try again: a retry never makes a second bcard.',

  'ext.options.title': 'bpay extension settings',
  'ext.options.origin': 'bpay address',
  'ext.options.originHint': 'The bpay site this browser connects to. Changing it disconnects this browser from the current one.',
  'ext.options.language': 'Language',
  'ext.options.language.auto': 'Browser language',
  'ext.options.language.en': 'English',
  'ext.options.language.ar': 'العربية',
  'ext.options.save': 'Save',
  'ext.options.saved': 'Saved.',
  'ext.options.error.invalid': 'Enter a web address such as https://bpay.example.com.',
  'ext.options.error.scheme': 'The address must start with http:// or https://.',
  'ext.options.error.path': 'Enter the site’s address only, without a path.',
  'ext.options.error.permission': 'The browser did not allow the extension to reach that address. Nothing was changed.',
  'ext.options.error.failed': 'The setting could not be saved: {message}',
} as const;

export const ar: Record<keyof typeof en, string> = {
  'ext.banner.label': 'bpay',
  'ext.banner.text': 'قسّم {amount} مع bpay',
  'ext.banner.textNoTotal': 'قسّم هذا الدفع مع bpay',
  'ext.banner.split': 'تقسيم',
  'ext.banner.dismiss': 'لا تعرض هذا على هذا الموقع مرة أخرى',

  'ext.popup.title': 'التقسيم مع bpay',
  'ext.popup.site': 'الموقع',
  'ext.popup.noPage': 'افتح صفحة الدفع في المتجر، ثم افتح bpay مرة أخرى.',
  'ext.popup.reload': 'أعد تحميل هذه الصفحة ليتمكن bpay من قراءة صفحة الدفع، ثم افتح bpay مرة أخرى.',
  'ext.popup.notDetected': 'لم يُعثر على إجمالي الدفع في هذه الصفحة: أدخله أدناه.',
  'ext.popup.loading': 'جارٍ التحميل…',
  'ext.popup.connectIntro':
    'اربط هذا المتصفح بحسابك في bpay لتقسيم الدفع على بطاقاتك. توافق على الربط في bpay: لا ترى الإضافة كلمة مرورك أبدًا.',
  'ext.popup.connect': 'الربط مع bpay',
  'ext.popup.connectAgain': 'الربط مرة أخرى',
  'ext.popup.disconnected': 'فُصل هذا المتصفح عن bpay. اربطه مرة أخرى.',
  'ext.popup.connectedAs': 'مرتبط باسم {label}',
  'ext.popup.settings': 'الإعدادات',
  'ext.popup.total': 'المبلغ المطلوب دفعه',
  'ext.popup.totalHint': 'ما سيخصمه المتجر. تحقق منه في الصفحة.',
  'ext.popup.amount.invalid': 'أدخل الإجمالي، مثلًا 42.50.',
  'ext.popup.amount.decimals': 'استخدم منزلتين عشريتين على الأكثر.',
  'ext.popup.amount.minimum': 'يجب ألا يقل الإجمالي عن 1.00 دولار.',
  'ext.popup.amount.maximum': 'يجب ألا يزيد الإجمالي على 1,000,000.00 دولار.',
  'ext.popup.currency': 'بطاقات bpay بالدولار الأمريكي؛ وهذه الصفحة تعرض {currency}.',
  'ext.popup.presets': 'إعدادات جاهزة',
  'ext.popup.preset.default': 'تقسيمك الافتراضي',
  'ext.popup.preset.even': 'تقسيم متساوٍ',
  'ext.popup.preset.one': 'بطاقة واحدة: {name}',
  'ext.popup.sources.loading': 'جارٍ تحميل مصادر التمويل…',
  'ext.popup.sources.none': 'ليس لديك مصدر تمويل نشط. أضف بطاقة أو حسابًا مصرفيًا في bpay أولًا.',
  'ext.popup.retry': 'إعادة المحاولة',
  'ext.popup.submit': 'إنشاء bcard وتعبئتها',
  'ext.popup.submitting': 'جارٍ إنشاء بطاقة bcard…',
  'ext.popup.filling': 'جارٍ تعبئة البطاقة في الصفحة…',
  'ext.popup.result.card': 'بطاقة bcard {last4} بمبلغ {amount}',
  'ext.popup.result.filled': 'تمت التعبئة. راجع البيانات في الصفحة، ثم أكمل طلبك.',
  'ext.popup.result.noFields':
    'بطاقة bcard جاهزة، لكن لم يُعثر على حقول البطاقة في الصفحة. انتقل إلى خطوة الدفع، ثم اضغط «التعبئة مرة أخرى».',
  'ext.popup.result.fillFailed': 'بطاقة bcard جاهزة، لكن تعذرت تعبئتها: {message}',
  'ext.popup.result.siteChanged': 'لم تعد هذه النافذة تعرض الموقع الذي أُنشئت له البطاقة. عد إلى صفحة الدفع فيه ثم أعد التعبئة.',
  'ext.popup.fillAgain': 'التعبئة مرة أخرى',
  'ext.popup.failed': 'لم تُنشأ أي بطاقة bcard: {message}',
  'ext.popup.network': 'تعذر الوصول إلى bpay. تحقق من اتصالك وحاول مرة أخرى: لا تُنشئ إعادة المحاولة بطاقة ثانية أبدًا.',

  'ext.options.title': 'إعدادات إضافة bpay',
  'ext.options.origin': 'عنوان bpay',
  'ext.options.originHint': 'موقع bpay الذي يرتبط به هذا المتصفح. تغييره يفصل هذا المتصفح عن الموقع الحالي.',
  'ext.options.language': 'اللغة',
  'ext.options.language.auto': 'لغة المتصفح',
  'ext.options.language.en': 'English',
  'ext.options.language.ar': 'العربية',
  'ext.options.save': 'حفظ',
  'ext.options.saved': 'تم الحفظ.',
  'ext.options.error.invalid': 'أدخل عنوان موقع مثل https://bpay.example.com.',
  'ext.options.error.scheme': 'يجب أن يبدأ العنوان بـ http:// أو https://.',
  'ext.options.error.path': 'أدخل عنوان الموقع فقط، دون مسار.',
  'ext.options.error.permission': 'لم يسمح المتصفح للإضافة بالوصول إلى هذا العنوان. لم يتغير شيء.',
  'ext.options.error.failed': 'تعذر حفظ الإعداد: {message}',
};

export type ExtKey = keyof typeof en;
export type Lang = 'en' | 'ar';
export type LanguageChoice = 'auto' | Lang;

/** The extension's language: the options page's choice, else Arabic when the browser's language is Arabic. */
export function resolveLanguage(choice: unknown, browserLanguage: string | undefined): Lang {
  if (choice === 'en' || choice === 'ar') return choice;
  return (browserLanguage ?? '').toLowerCase().startsWith('ar') ? 'ar' : 'en';
}

/** A text with its {placeholders} filled, as the web's translate() does. */
export function tx(lang: Lang, key: ExtKey, vars?: Record<string, string | number>): string {
  const template: string = (lang === 'ar' ? ar : en)[key];
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
