/**
 * The legal pages: /terms-conditions, /privacy-policy and /legal-disclaimers. Facts here must agree with the product:
 * no funds held, no wallets, no credit; single-use bcards (30-minute default session); $1.00 verification hold;
 * per-plan fees; 10 business days for disputes; 5–7 years' retention; argon2id passwords; tokenised cards.
 */
export const en = {
  'legal.meta.title': '{title} · bpay',
  'legal.eyebrow': 'Legal',
  'legal.lastUpdated': 'Last updated: {date}',
  'legal.lastUpdatedDate': 'January 1, 2025',
  'legal.toc': 'On this page',
  'legal.contact': 'Questions about this document? Write to us at {email}.',
  'legal.email': 'support@bpay.example',
  'legal.documents': 'Legal documents',
  'legal.copyright': '© 2025 bpay. All rights reserved.',

  // Terms & Conditions
  'legal.terms.title': 'Terms & Conditions',
  'legal.terms.summary':
    'These terms explain what bpay does, who may use it, what it costs and what happens when something goes wrong. Please read them before you create an account.',
  'legal.terms.introduction.title': 'Introduction',
  'legal.terms.introduction.p1':
    'These Terms & Conditions ("Terms") govern your use of bpay, a payment-splitting service that lets you split one purchase across several of your own cards and pay with a single-use virtual card called a bcard. By creating an account or using the service, you agree to these Terms.',
  'legal.terms.introduction.p2':
    'If you do not agree, please do not use bpay. We may update these Terms from time to time; we will publish the new version on this page with a new date and tell you about material changes by e-mail or in the app before they take effect.',
  'legal.terms.eligibility.title': 'Eligibility',
  'legal.terms.eligibility.p1':
    'You must be at least 18 years old and have the legal capacity to enter into a binding contract in the country where you live.',
  'legal.terms.eligibility.p2':
    'You may link only cards that you own or are authorised to use. We may ask you to verify your identity before or after you use certain features, and we may refuse, limit or end the service if verification fails.',
  'legal.terms.service.title': 'Service Description',
  'legal.terms.service.p1':
    'bpay lets you link funding sources, decide how a purchase is split between them by percentage or by fixed amount, and pay with a bcard. Each share is first collected from its funding source; a bcard is issued only after collection succeeds and is limited to the collected amount.',
  'legal.terms.service.p2':
    'A bcard is single-use. It is deactivated when it is used or when its session expires (30 minutes by default), and it can never be reloaded. If a bcard is not used, the collected money is refunded to the funding sources it came from.',
  'legal.terms.service.p3':
    'To verify a new card we place a $1.00 authorization hold, which is released within 1–3 business days. bpay is not a bank: we do not hold your funds, offer wallets or extend credit.',
  'legal.terms.fees.title': 'Fees',
  'legal.terms.fees.p1':
    'Fees depend on your plan and are shown on our pricing page before you subscribe. A transaction fee applies to each split payment: 2.9% on the Free and Professional plans and 1.9% on the Premium plan. Across our plans and enterprise agreements, transaction fees range from 0.9% to 2.9%.',
  'legal.terms.fees.p2':
    'The fee is added to the purchase amount, so the total collected from your funding sources is the amount plus the fee, and it is shown before you confirm. Paid plans are billed monthly in advance. Your card issuers may charge their own fees, such as interest or foreign transaction fees, which bpay does not control.',
  'legal.terms.refunds.title': 'Refunds & Disputes',
  'legal.terms.refunds.p1':
    'Refunds for goods and services are handled by the merchant under its own policy. When a merchant refunds a purchase paid with a bcard, the refund is returned to the funding sources that paid for it. Money collected for a bcard that is never used is refunded automatically.',
  'legal.terms.refunds.p2':
    'If you believe a transaction was unauthorised or processed incorrectly, you must raise a dispute with us within 10 business days of the transaction by writing to support@bpay.example. We will investigate and give you our answer; you may also have rights under your card issuer’s chargeback rules.',
  'legal.terms.refunds.p3': 'Transaction fees are not refundable unless a transaction is reversed because of our error.',
  'legal.terms.limitations.title': 'Limitations',
  'legal.terms.limitations.p1':
    'Your plan limits the number of funding sources, monthly transactions, bcards you may generate and API calls. bcards carry spending limits and may carry merchant restrictions, and we may decline or review a transaction to protect you or to meet our legal obligations.',
  'legal.terms.limitations.p2':
    'You may not use bpay for unlawful purchases, to get around the limits or controls of your cards, to launder money, or to pay with cards belonging to someone else without their permission.',
  'legal.terms.liability.title': 'Liability',
  'legal.terms.liability.p1':
    'bpay is provided "as is" and "as available". To the fullest extent permitted by law, we are not liable for indirect, incidental or consequential losses, or for losses caused by merchants, card issuers, card networks or other third parties.',
  'legal.terms.liability.p2':
    'Our total liability for any claim about the service is limited to the fees you paid to bpay in the 12 months before the claim. Nothing in these Terms limits any liability that cannot be limited by law.',
  'legal.terms.termination.title': 'Termination',
  'legal.terms.termination.p1':
    'You may close your account at any time from your settings or by contacting support. When you do, any active bcards are deactivated and any amounts collected for unused bcards are refunded to their funding sources.',
  'legal.terms.termination.p2':
    'We may suspend or close your account if you break these Terms, if the law requires it, or if we reasonably suspect fraud. After closure we keep the records the law requires, as described in our Privacy Policy.',

  // Privacy Policy
  'legal.privacy.title': 'Privacy Policy',
  'legal.privacy.summary':
    'This policy explains what personal data bpay collects, why, who we share it with, how long we keep it and the rights you have over it.',
  'legal.privacy.collected.title': 'Data We Collect',
  'legal.privacy.collected.p1':
    'Account data: your name, e-mail address, phone number, postal address and password, which we store only as an argon2id hash. If you choose to verify your identity, we also collect your date of birth and your identity document’s type, issuing country, number and images.',
  'legal.privacy.collected.p2':
    'Payment metadata: funding source IDs, split percentages and amounts. For each card we keep only our payment processor’s token, the card brand, the last 4 digits and the expiry date; full card numbers are never stored in plain form.',
  'legal.privacy.collected.p3':
    'Transaction data: amount, merchant, virtual card usage, status and time. Technical data: device and browser information, IP address, and the session cookies that keep you signed in.',
  'legal.privacy.use.title': 'How We Use Your Data',
  'legal.privacy.use.p1':
    'We use your data to provide the service: linking and verifying your cards, collecting each share of a purchase, issuing bcards, and showing your history and spending analytics.',
  'legal.privacy.use.p2':
    'We also use it to keep you and others safe, through fraud prevention, identity verification (KYC), anti-money-laundering (AML) checks and security monitoring, and to meet our legal obligations, answer your requests and send you service messages. We do not sell your personal data.',
  'legal.privacy.sharing.title': 'Sharing Your Data',
  'legal.privacy.sharing.p1':
    'We share data only as needed to run the service: with payment processors and card networks to verify cards, collect shares and process bcard payments; with identity verification providers when you verify your identity; with the merchant you pay, who receives the payment details needed to complete your purchase; and with service providers who are bound by confidentiality.',
  'legal.privacy.sharing.p2':
    'We also disclose data when the law, a regulator or a court requires it, or when it is needed to prevent fraud. If bpay is involved in a merger or acquisition, your data may be transferred under the protections of this policy.',
  'legal.privacy.retention.title': 'Data Retention and Security',
  'legal.privacy.retention.p1':
    'We keep account and transaction records while your account is open and afterwards for as long as financial regulations require, typically 5–7 years. Identity documents are kept only as long as verification and the law require.',
  'legal.privacy.retention.p2':
    'Your data is protected with 256-bit encryption in transit and at rest. Passwords are hashed with argon2id and card numbers are never stored in plain form. Access is limited to the people who need it, and it is logged.',
  'legal.privacy.rights.title': 'Your Rights',
  'legal.privacy.rights.p1':
    'Depending on where you live, you may ask to access, correct, export or delete your personal data, object to or restrict some processing, and withdraw your consent. Records that the law requires us to keep are retained for their retention period even after a deletion request.',
  'legal.privacy.rights.p2':
    'To exercise your rights, write to support@bpay.example. We will answer within the time the law allows, and you may also complain to your local data protection authority.',

  // Legal Disclaimers
  'legal.disclaimers.title': 'Legal Disclaimers',
  'legal.disclaimers.summary':
    'These disclaimers set out the limits of what bpay is and does. They apply together with our Terms & Conditions and Privacy Policy.',
  'legal.disclaimers.advice.title': 'No Financial Advice',
  'legal.disclaimers.advice.p1':
    'Information in bpay, including spending analytics and suggested splits, is general information only and is not financial, investment, tax or legal advice. Decide how to split and spend based on your own circumstances, and consult a qualified adviser where needed.',
  'legal.disclaimers.cards.title': 'Card Use',
  'legal.disclaimers.cards.p1':
    'You are responsible for the cards you link and for the charges each share creates on them, including the interest, fees and credit limits set by your card issuers. A $1.00 authorization hold verifies each card and is released within 1–3 business days.',
  'legal.disclaimers.cards.p2':
    'bcards are single-use, limited to the collected amount, deactivated when used or when the session expires (30 minutes by default), and cannot be reloaded. Money collected for an unused bcard is refunded to its funding sources.',
  'legal.disclaimers.thirdParties.title': 'Third Parties',
  'legal.disclaimers.thirdParties.p1':
    'Payments rely on third parties such as payment processors, card networks, card issuers, identity verification providers and merchants. bpay is not responsible for their products, policies or availability, or for the goods and services merchants sell. Links to other websites are provided for convenience only.',
  'legal.disclaimers.downtime.title': 'Service Availability and Downtime',
  'legal.disclaimers.downtime.p1':
    'We work to keep bpay available, but the service may be interrupted for maintenance, upgrades or events beyond our control, and we do not guarantee uninterrupted access. If a bcard session expires during an interruption, the bcard is deactivated and the money collected for it is refunded to its funding sources.',
  'legal.disclaimers.regulatory.title': 'Regulatory Model',
  'legal.disclaimers.regulatory.p1':
    'bpay is a payment-splitting technology service, not a bank. It does not hold customer funds, offer wallets or extend credit. Card verification, collection of each share and bcard payments are processed through regulated payment partners, and features may vary by country or change as regulations require.',
  'legal.disclaimers.kyc.title': 'KYC/AML',
  'legal.disclaimers.kyc.p1':
    'To prevent fraud, money laundering and terrorist financing, we may verify your identity (KYC), screen transactions (AML) and ask you for more information. Until your identity is verified, funding sources must be in the account holder’s name. We may delay, refuse or report transactions where the law requires.',
  'legal.disclaimers.controls.title': 'Transaction Controls',
  'legal.disclaimers.controls.p1':
    'bcards carry spending limits and may carry merchant restrictions. Splits must add up to 100% of the purchase before a bcard is created. We may decline, hold or limit a transaction that exceeds your plan’s limits, fails a security check or looks unusual.',
  'legal.disclaimers.independence.title': 'Platform Independence',
  'legal.disclaimers.independence.p1':
    'bpay is independent of the card networks, card issuers and most merchants you use it with. Card brands and merchant names are trademarks of their owners; their appearance in bpay does not mean that they endorse bpay or are its partners, unless we say so expressly.',
} as const;

export const ar: Record<keyof typeof en, string> = {
  'legal.meta.title': '{title} · bpay',
  'legal.eyebrow': 'قانوني',
  'legal.lastUpdated': 'آخر تحديث: {date}',
  'legal.lastUpdatedDate': '1 يناير 2025',
  'legal.toc': 'في هذه الصفحة',
  'legal.contact': 'هل لديك أسئلة حول هذه الوثيقة؟ راسلنا على {email}.',
  'legal.email': 'support@bpay.example',
  'legal.documents': 'الوثائق القانونية',
  'legal.copyright': '© 2025 bpay. جميع الحقوق محفوظة.',

  // الشروط والأحكام
  'legal.terms.title': 'الشروط والأحكام',
  'legal.terms.summary':
    'توضّح هذه الشروط ما تقدّمه bpay، ومن يحق له استخدامها، وتكلفتها، وما يحدث عند وقوع مشكلة. يرجى قراءتها قبل إنشاء حسابك.',
  'legal.terms.introduction.title': 'مقدمة',
  'legal.terms.introduction.p1':
    'تحكم هذه الشروط والأحكام ("الشروط") استخدامك لخدمة bpay، وهي خدمة لتقسيم المدفوعات تتيح لك تقسيم عملية شراء واحدة على عدة بطاقات تملكها والدفع ببطاقة افتراضية للاستخدام مرة واحدة تُسمّى bcard. بإنشاء حساب أو استخدام الخدمة، فإنك توافق على هذه الشروط.',
  'legal.terms.introduction.p2':
    'إذا كنت لا توافق عليها، فيرجى عدم استخدام bpay. قد نحدّث هذه الشروط من وقت لآخر، وسننشر النسخة الجديدة في هذه الصفحة بتاريخ جديد، ونبلغك بالتغييرات الجوهرية عبر البريد الإلكتروني أو داخل التطبيق قبل سريانها.',
  'legal.terms.eligibility.title': 'الأهلية',
  'legal.terms.eligibility.p1': 'يجب ألا يقل عمرك عن 18 عاماً وأن تتمتع بالأهلية القانونية لإبرام عقد ملزم في البلد الذي تقيم فيه.',
  'legal.terms.eligibility.p2':
    'لا يجوز لك ربط إلا البطاقات التي تملكها أو المصرّح لك باستخدامها. قد نطلب منك التحقق من هويتك قبل استخدام بعض المزايا أو بعده، ويجوز لنا رفض الخدمة أو تقييدها أو إنهاؤها إذا لم ينجح التحقق.',
  'legal.terms.service.title': 'وصف الخدمة',
  'legal.terms.service.p1':
    'تتيح لك bpay ربط مصادر التمويل، وتحديد طريقة تقسيم عملية الشراء بينها بنسبة مئوية أو بمبلغ ثابت، والدفع ببطاقة bcard. تُحصَّل كل حصة أولاً من مصدر تمويلها، ولا تُصدر بطاقة bcard إلا بعد نجاح التحصيل، وتكون محدودة بالمبلغ المحصّل.',
  'legal.terms.service.p2':
    'بطاقة bcard مخصّصة للاستخدام مرة واحدة. تُعطَّل عند استخدامها أو عند انتهاء جلستها (30 دقيقة افتراضياً)، ولا يمكن إعادة شحنها أبداً. إذا لم تُستخدم البطاقة، يُعاد المبلغ المحصّل إلى مصادر التمويل التي جاء منها.',
  'legal.terms.service.p3':
    'للتحقق من أي بطاقة جديدة نضع تعليق تفويض بقيمة 1.00 دولار يُلغى خلال 1 إلى 3 أيام عمل. bpay ليست بنكاً: فنحن لا نحتفظ بأموالك ولا نقدّم محافظ ولا نمنح ائتماناً.',
  'legal.terms.fees.title': 'الرسوم',
  'legal.terms.fees.p1':
    'تعتمد الرسوم على خطتك وتظهر في صفحة الأسعار قبل الاشتراك. تُطبَّق رسوم معاملة على كل دفعة مقسّمة: 2.9% في الخطتين المجانية والاحترافية و1.9% في الخطة المميزة. وتتراوح رسوم المعاملات في خططنا واتفاقيات المؤسسات بين 0.9% و2.9%.',
  'legal.terms.fees.p2':
    'تُضاف الرسوم إلى مبلغ الشراء، فيكون إجمالي ما يُحصَّل من مصادر التمويل هو المبلغ مضافاً إليه الرسوم، ويظهر لك قبل التأكيد. تُدفع الخطط المدفوعة شهرياً مقدماً. وقد تفرض الجهات المصدرة لبطاقاتك رسومها الخاصة، مثل الفوائد أو رسوم المعاملات الأجنبية، ولا تتحكم bpay فيها.',
  'legal.terms.refunds.title': 'المبالغ المستردة والنزاعات',
  'legal.terms.refunds.p1':
    'يتولى التاجر استرداد ثمن السلع والخدمات وفق سياسته الخاصة. وعندما يردّ التاجر ثمن عملية شراء دُفعت ببطاقة bcard، يُعاد المبلغ إلى مصادر التمويل التي دفعته. أما المبالغ المحصّلة لبطاقة bcard لم تُستخدم فتُعاد تلقائياً.',
  'legal.terms.refunds.p2':
    'إذا كنت تعتقد أن معاملة ما غير مصرّح بها أو عولجت بشكل خاطئ، فيجب عليك رفع نزاع لدينا خلال 10 أيام عمل من تاريخ المعاملة بمراسلة support@bpay.example. سنحقق في الأمر ونبلغك بردّنا، وقد تكون لك أيضاً حقوق بموجب قواعد استرداد المدفوعات لدى الجهة المصدرة لبطاقتك.',
  'legal.terms.refunds.p3': 'رسوم المعاملات غير قابلة للاسترداد ما لم تُلغَ المعاملة بسبب خطأ من جانبنا.',
  'legal.terms.limitations.title': 'القيود',
  'legal.terms.limitations.p1':
    'تحدّد خطتك عدد مصادر التمويل والمعاملات الشهرية وبطاقات bcard التي يمكنك إنشاؤها واستدعاءات واجهة البرمجة. وتحمل بطاقات bcard حدوداً للإنفاق وقد تحمل قيوداً على التجار، ويجوز لنا رفض معاملة أو مراجعتها لحمايتك أو للوفاء بالتزاماتنا القانونية.',
  'legal.terms.limitations.p2':
    'لا يجوز لك استخدام bpay في مشتريات غير مشروعة، أو للالتفاف على حدود بطاقاتك أو ضوابطها، أو لغسل الأموال، أو للدفع ببطاقات تخص شخصاً آخر دون إذنه.',
  'legal.terms.liability.title': 'المسؤولية',
  'legal.terms.liability.p1':
    'تُقدَّم bpay "كما هي" و"حسب توفرها". وإلى أقصى حد يسمح به القانون، لا نتحمل المسؤولية عن الخسائر غير المباشرة أو العرضية أو التبعية، ولا عن الخسائر التي يسببها التجار أو الجهات المصدرة للبطاقات أو شبكات البطاقات أو أي أطراف ثالثة أخرى.',
  'legal.terms.liability.p2':
    'تقتصر مسؤوليتنا الإجمالية عن أي مطالبة تتعلق بالخدمة على الرسوم التي دفعتها إلى bpay خلال الاثني عشر شهراً السابقة للمطالبة. ولا يحدّ أي شيء في هذه الشروط من مسؤولية لا يجوز تقييدها قانوناً.',
  'legal.terms.termination.title': 'إنهاء الخدمة',
  'legal.terms.termination.p1':
    'يمكنك إغلاق حسابك في أي وقت من الإعدادات أو بالتواصل مع الدعم. وعند ذلك تُعطَّل أي بطاقات bcard نشطة، وتُعاد المبالغ المحصّلة للبطاقات غير المستخدمة إلى مصادر تمويلها.',
  'legal.terms.termination.p2':
    'يجوز لنا تعليق حسابك أو إغلاقه إذا خالفت هذه الشروط، أو إذا اقتضى القانون ذلك، أو إذا اشتبهنا بشكل معقول في وجود احتيال. وبعد الإغلاق نحتفظ بالسجلات التي يفرضها القانون، كما هو موضح في سياسة الخصوصية.',

  // سياسة الخصوصية
  'legal.privacy.title': 'سياسة الخصوصية',
  'legal.privacy.summary':
    'توضّح هذه السياسة البيانات الشخصية التي تجمعها bpay وسبب جمعها والجهات التي نشاركها معها ومدة الاحتفاظ بها وحقوقك فيها.',
  'legal.privacy.collected.title': 'البيانات التي نجمعها',
  'legal.privacy.collected.p1':
    'بيانات الحساب: اسمك وبريدك الإلكتروني ورقم هاتفك وعنوانك البريدي وكلمة المرور التي لا نخزّنها إلا كقيمة مجزّأة بخوارزمية argon2id. وإذا اخترت التحقق من هويتك، نجمع أيضاً تاريخ ميلادك ونوع وثيقة هويتك وبلد إصدارها ورقمها وصورها.',
  'legal.privacy.collected.p2':
    'بيانات الدفع الوصفية: معرّفات مصادر التمويل ونسب التقسيم ومبالغه. ولكل بطاقة لا نحتفظ إلا برمز معالج الدفع ونوع البطاقة وآخر 4 أرقام وتاريخ الانتهاء، ولا تُخزَّن أرقام البطاقات الكاملة بشكل مقروء أبداً.',
  'legal.privacy.collected.p3':
    'بيانات المعاملات: المبلغ والتاجر واستخدام البطاقة الافتراضية والحالة والوقت. البيانات التقنية: معلومات الجهاز والمتصفح وعنوان IP وملفات تعريف ارتباط الجلسة التي تُبقيك مسجّلاً للدخول.',
  'legal.privacy.use.title': 'كيف نستخدم بياناتك',
  'legal.privacy.use.p1':
    'نستخدم بياناتك لتقديم الخدمة: ربط بطاقاتك والتحقق منها، وتحصيل كل حصة من عملية الشراء، وإصدار بطاقات bcard، وعرض سجلك وتحليلات إنفاقك.',
  'legal.privacy.use.p2':
    'ونستخدمها أيضاً لحمايتك وحماية الآخرين عبر منع الاحتيال والتحقق من الهوية (KYC) وفحوص مكافحة غسل الأموال (AML) ومراقبة الأمان، وللوفاء بالتزاماتنا القانونية والرد على طلباتك وإرسال رسائل الخدمة. نحن لا نبيع بياناتك الشخصية.',
  'legal.privacy.sharing.title': 'مشاركة بياناتك',
  'legal.privacy.sharing.p1':
    'لا نشارك البيانات إلا بالقدر اللازم لتشغيل الخدمة: مع معالجي الدفع وشبكات البطاقات للتحقق من البطاقات وتحصيل الحصص ومعالجة مدفوعات bcard، ومع مزوّدي خدمات التحقق من الهوية عند التحقق من هويتك، ومع التاجر الذي تدفع له والذي يتلقى بيانات الدفع اللازمة لإتمام عملية شرائك، ومع مزوّدي الخدمات الملتزمين بالسرية.',
  'legal.privacy.sharing.p2':
    'ونفصح عن البيانات أيضاً عندما يقتضي ذلك القانون أو جهة تنظيمية أو محكمة، أو عندما يلزم ذلك لمنع الاحتيال. وإذا كانت bpay طرفاً في عملية اندماج أو استحواذ، فقد تُنقل بياناتك مع الحفاظ على الحماية التي تكفلها هذه السياسة.',
  'legal.privacy.retention.title': 'الاحتفاظ بالبيانات وأمنها',
  'legal.privacy.retention.p1':
    'نحتفظ بسجلات الحساب والمعاملات طوال فترة فتح حسابك، وبعد ذلك للمدة التي تفرضها الأنظمة المالية، وهي عادةً من 5 إلى 7 سنوات. ولا نحتفظ بوثائق الهوية إلا للمدة التي يتطلبها التحقق والقانون.',
  'legal.privacy.retention.p2':
    'تُحمى بياناتك بتشفير 256 بت أثناء النقل والتخزين. وتُجزَّأ كلمات المرور بخوارزمية argon2id، ولا تُخزَّن أرقام البطاقات بشكل مقروء أبداً. ويقتصر الوصول على من يحتاجون إليه، ويُسجَّل كل وصول.',
  'legal.privacy.rights.title': 'حقوقك',
  'legal.privacy.rights.p1':
    'بحسب مكان إقامتك، يمكنك طلب الاطلاع على بياناتك الشخصية أو تصحيحها أو تصديرها أو حذفها، والاعتراض على بعض المعالجة أو تقييدها، وسحب موافقتك. أما السجلات التي يلزمنا القانون بالاحتفاظ بها فتبقى طوال مدة الاحتفاظ بها حتى بعد طلب الحذف.',
  'legal.privacy.rights.p2':
    'لممارسة حقوقك، راسلنا على support@bpay.example. سنرد خلال المدة التي يسمح بها القانون، ويمكنك أيضاً تقديم شكوى إلى هيئة حماية البيانات المحلية.',

  // إخلاء المسؤولية القانونية
  'legal.disclaimers.title': 'إخلاء المسؤولية القانونية',
  'legal.disclaimers.summary':
    'يبيّن هذا الإخلاء حدود ما تمثله bpay وما تقدّمه، ويسري إلى جانب الشروط والأحكام وسياسة الخصوصية.',
  'legal.disclaimers.advice.title': 'لا نقدّم استشارات مالية',
  'legal.disclaimers.advice.p1':
    'المعلومات الواردة في bpay، بما فيها تحليلات الإنفاق والتقسيمات المقترحة، هي معلومات عامة فقط وليست استشارة مالية أو استثمارية أو ضريبية أو قانونية. قرّر طريقة التقسيم والإنفاق وفق ظروفك الخاصة، واستشر مختصاً مؤهلاً عند الحاجة.',
  'legal.disclaimers.cards.title': 'استخدام البطاقات',
  'legal.disclaimers.cards.p1':
    'أنت مسؤول عن البطاقات التي تربطها وعن الرسوم التي تنشئها كل حصة عليها، بما في ذلك الفوائد والرسوم وحدود الائتمان التي تحددها الجهات المصدرة لبطاقاتك. نتحقق من كل بطاقة بتعليق تفويض بقيمة 1.00 دولار يُلغى خلال 1 إلى 3 أيام عمل.',
  'legal.disclaimers.cards.p2':
    'بطاقات bcard مخصّصة للاستخدام مرة واحدة، ومحدودة بالمبلغ المحصّل، وتُعطَّل عند استخدامها أو عند انتهاء الجلسة (30 دقيقة افتراضياً)، ولا يمكن إعادة شحنها. ويُعاد المبلغ المحصّل لبطاقة غير مستخدمة إلى مصادر تمويلها.',
  'legal.disclaimers.thirdParties.title': 'الأطراف الثالثة',
  'legal.disclaimers.thirdParties.p1':
    'تعتمد المدفوعات على أطراف ثالثة مثل معالجي الدفع وشبكات البطاقات والجهات المصدرة للبطاقات ومزوّدي خدمات التحقق من الهوية والتجار. ولا تتحمل bpay المسؤولية عن منتجاتهم أو سياساتهم أو توفر خدماتهم، ولا عن السلع والخدمات التي يبيعها التجار. وتُقدَّم الروابط إلى المواقع الأخرى للتيسير فقط.',
  'legal.disclaimers.downtime.title': 'توفر الخدمة وتوقفها',
  'legal.disclaimers.downtime.p1':
    'نعمل على إبقاء bpay متاحة، لكن الخدمة قد تتوقف للصيانة أو التحديث أو لظروف خارجة عن إرادتنا، ولا نضمن وصولاً دون انقطاع. وإذا انتهت جلسة بطاقة bcard أثناء التوقف، تُعطَّل البطاقة ويُعاد المبلغ المحصّل لها إلى مصادر تمويلها.',
  'legal.disclaimers.regulatory.title': 'النموذج التنظيمي',
  'legal.disclaimers.regulatory.p1':
    'bpay خدمة تقنية لتقسيم المدفوعات وليست بنكاً. فهي لا تحتفظ بأموال العملاء ولا تقدّم محافظ ولا تمنح ائتماناً. ويجري التحقق من البطاقات وتحصيل الحصص ومدفوعات bcard عبر شركاء دفع خاضعين للتنظيم، وقد تختلف المزايا من بلد لآخر أو تتغير وفق ما تقتضيه الأنظمة.',
  'legal.disclaimers.kyc.title': 'اعرف عميلك ومكافحة غسل الأموال (KYC/AML)',
  'legal.disclaimers.kyc.p1':
    'لمنع الاحتيال وغسل الأموال وتمويل الإرهاب، قد نتحقق من هويتك (KYC) ونفحص المعاملات (AML) ونطلب منك معلومات إضافية. وإلى أن يتم التحقق من هويتك، يجب أن تكون مصادر التمويل باسم صاحب الحساب. ويجوز لنا تأخير المعاملات أو رفضها أو الإبلاغ عنها حيث يقتضي القانون ذلك.',
  'legal.disclaimers.controls.title': 'ضوابط المعاملات',
  'legal.disclaimers.controls.p1':
    'تحمل بطاقات bcard حدوداً للإنفاق وقد تحمل قيوداً على التجار. ويجب أن يبلغ مجموع التقسيمات 100% من قيمة الشراء قبل إنشاء البطاقة. ويجوز لنا رفض معاملة أو تعليقها أو تقييدها إذا تجاوزت حدود خطتك أو لم تجتز فحص الأمان أو بدت غير اعتيادية.',
  'legal.disclaimers.independence.title': 'استقلالية المنصة',
  'legal.disclaimers.independence.p1':
    'bpay مستقلة عن شبكات البطاقات والجهات المصدرة للبطاقات ومعظم التجار الذين تستخدمها معهم. وأسماء البطاقات والتجار علامات تجارية مملوكة لأصحابها، ولا يعني ظهورها في bpay أنهم يؤيدونها أو أنهم شركاء لها ما لم نذكر ذلك صراحة.',
};
