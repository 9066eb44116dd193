/*
 * The sign-in link (issue 27): what the sign-in form says when an account's daily cap of failed sign-ins is full and
 * this device is new to it, and the page the mailed link opens (/sign-in-link). Registered by the auth area and the
 * sign-in-link area.
 */
export const en = {
  'signInLink.sent.title': 'Check your e-mail',
  'signInLink.sent.body':
    'This account had too many failed sign-ins today, so a new device needs one more step. If the password you entered is right, we have e-mailed you a one-time sign-in link. Open it on this device, on this network, within 15 minutes. If no e-mail arrives, check the password and try again.',
  'signInLink.limited': 'Too many sign-in link requests from this network. Try again in {wait}.',
  'signInLink.page.meta.title': 'Sign in with your link · bpay',
  'signInLink.page.title': 'Sign in with your link',
  'signInLink.page.body': 'Finish signing in to bpay on this device. The link works once, for 15 minutes, and only on the network you asked from.',
  'signInLink.page.submit': 'Sign in',
  'signInLink.page.pending': 'Signing in…',
  'signInLink.page.noToken': 'This page needs the link from your sign-in e-mail. Open the link from the e-mail, or sign in again.',
  'signInLink.page.signInAgain': 'Sign in again',
  'signInLink.page.done': 'You are signed in',
  'signInLink.page.language': 'العربية',
  'signInLink.error.invalid': 'This sign-in link is not valid (your password may have changed since it was sent). Sign in again.',
  'signInLink.error.expired': 'This sign-in link has expired: it works for 15 minutes. Sign in again to get a new one.',
  'signInLink.error.used': 'This sign-in link was already used. Sign in again to get a new one.',
  'signInLink.error.otherNetwork':
    'This sign-in link works only on the network you asked for it from. Open it on the device and network where you signed in (it still works there), or sign in again from here.',
  'signInLink.error.failed': 'The sign-in did not work. Try again.',
  'signInLink.error.code': 'That code is not valid. Check your authenticator app and try again.',
} as const;

export const ar: Record<keyof typeof en, string> = {
  'signInLink.sent.title': 'تحقق من بريدك الإلكتروني',
  'signInLink.sent.body':
    'حدثت محاولات تسجيل دخول فاشلة كثيرة لهذا الحساب اليوم، لذا يحتاج الجهاز الجديد إلى خطوة إضافية. إذا كانت كلمة المرور التي أدخلتها صحيحة، فقد أرسلنا إليك رابط تسجيل دخول يُستخدم مرة واحدة. افتحه على هذا الجهاز، وعلى هذه الشبكة، خلال 15 دقيقة. إذا لم تصلك رسالة، فتحقق من كلمة المرور وحاول مرة أخرى.',
  'signInLink.limited': 'طلبات كثيرة لروابط تسجيل الدخول من هذه الشبكة. حاول مرة أخرى بعد {wait}.',
  'signInLink.page.meta.title': 'تسجيل الدخول بالرابط · bpay',
  'signInLink.page.title': 'تسجيل الدخول بالرابط',
  'signInLink.page.body': 'أكمل تسجيل الدخول إلى bpay على هذا الجهاز. يعمل الرابط مرة واحدة، لمدة 15 دقيقة، وعلى الشبكة التي طلبته منها فقط.',
  'signInLink.page.submit': 'تسجيل الدخول',
  'signInLink.page.pending': 'جارٍ تسجيل الدخول…',
  'signInLink.page.noToken': 'تحتاج هذه الصفحة إلى الرابط الموجود في رسالة تسجيل الدخول. افتح الرابط من الرسالة، أو سجّل الدخول من جديد.',
  'signInLink.page.signInAgain': 'سجّل الدخول من جديد',
  'signInLink.page.done': 'تم تسجيل دخولك',
  'signInLink.page.language': 'English',
  'signInLink.error.invalid': 'رابط تسجيل الدخول هذا غير صالح (ربما تغيّرت كلمة مرورك بعد إرساله). سجّل الدخول من جديد.',
  'signInLink.error.expired': 'انتهت صلاحية رابط تسجيل الدخول هذا: يعمل لمدة 15 دقيقة. سجّل الدخول من جديد للحصول على رابط جديد.',
  'signInLink.error.used': 'سبق استخدام رابط تسجيل الدخول هذا. سجّل الدخول من جديد للحصول على رابط جديد.',
  'signInLink.error.otherNetwork':
    'يعمل رابط تسجيل الدخول هذا فقط على الشبكة التي طلبته منها. افتحه على الجهاز والشبكة اللذين سجّلت الدخول منهما (ما زال يعمل هناك)، أو سجّل الدخول من جديد من هنا.',
  'signInLink.error.failed': 'لم ينجح تسجيل الدخول. حاول مرة أخرى.',
  'signInLink.error.code': 'هذا الرمز غير صالح. تحقق من تطبيق المصادقة وحاول مرة أخرى.',
};
