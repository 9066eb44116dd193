import { QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Toaster } from '../components/ui/toaster';
import { AuthProvider } from '../features/auth/auth-context';
import { DemoModeProvider } from '../features/demo-mode/demo-mode';
import { LanguageProvider } from '../i18n';
import { createQueryClient } from '../lib/query-client';

/** `path`: the page the build prerenders (web/src/app/prerender.tsx); absent in the browser. */
export function Providers({ children, path }: { children: ReactNode; path?: string }) {
  const [client] = useState(createQueryClient);
  return (
    <QueryClientProvider client={client}>
      <LanguageProvider path={path}>
        <DemoModeProvider>
          <AuthProvider>
            {/* Tooltips appear on the dashboard only: its area module (./areas/dashboard) has their provider. */}
            {children}
            <Toaster />
          </AuthProvider>
        </DemoModeProvider>
      </LanguageProvider>
    </QueryClientProvider>
  );
}
