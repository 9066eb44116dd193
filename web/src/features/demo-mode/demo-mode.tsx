import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { readSetting, writeSetting } from '../../lib/storage';

export const DEMO_MODE_KEY = 'bpay-demo-mode';

interface DemoModeValue {
  isDemoMode: boolean;
  setDemoMode(on: boolean): void;
}
const DemoModeContext = createContext<DemoModeValue | null>(null);

/** Demo mode (spec §4): on or off, persisted on the device; when on, sample data replaces real data. */
export function DemoModeProvider({ children }: { children: ReactNode }) {
  const [isDemoMode, setState] = useState(() => readSetting(DEMO_MODE_KEY) === 'true');
  const setDemoMode = useCallback((on: boolean) => {
    writeSetting(DEMO_MODE_KEY, String(on));
    setState(on);
  }, []);
  const value = useMemo(() => ({ isDemoMode, setDemoMode }), [isDemoMode, setDemoMode]);
  return <DemoModeContext.Provider value={value}>{children}</DemoModeContext.Provider>;
}

export function useDemoMode(): DemoModeValue {
  const ctx = useContext(DemoModeContext);
  if (!ctx) throw new Error('useDemoMode must be used within a DemoModeProvider');
  return ctx;
}
