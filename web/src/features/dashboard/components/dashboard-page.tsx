export function DashboardPage() { return <main>Dashboard</main>; }
