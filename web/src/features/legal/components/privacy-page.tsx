export function PrivacyPage() { return <main>PrivacyPage</main>; }
