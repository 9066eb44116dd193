import { useSyncExternalStore } from 'react';

/*
 * A tiny toast store (spec §9): one toast visible at a time; a dismissed toast stays in memory for
 * 1,000,000 ms before removal, so its exit animation can never be cut short by a re-render.
 */
export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY_MS = 1_000_000;
export const TOAST_DURATION_MS = 5000;

export interface ToastInput {
  title: string;
  description?: string;
  variant?: 'default' | 'destructive';
}
export interface ToastItem extends ToastInput {
  id: number;
  open: boolean;
}

let toasts: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const removalTimers = new Map<number, ReturnType<typeof setTimeout>>();

function emit() {
  for (const l of listeners) l();
}

export function toast(input: ToastInput): { id: number; dismiss(): void } {
  const id = nextId++;
  toasts = [{ ...input, id, open: true }, ...toasts].slice(0, TOAST_LIMIT);
  emit();
  return { id, dismiss: () => dismissToast(id) };
}

export function dismissToast(id: number): void {
  toasts = toasts.map((t) => (t.id === id ? { ...t, open: false } : t));
  emit();
  if (!removalTimers.has(id)) {
    removalTimers.set(
      id,
      setTimeout(() => {
        removalTimers.delete(id);
        toasts = toasts.filter((t) => t.id !== id);
        emit();
      }, TOAST_REMOVE_DELAY_MS),
    );
  }
}

export function useToasts(): ToastItem[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => toasts,
    // A prerendered page (and its hydration) starts with no toasts.
    () => NO_TOASTS,
  );
}

const NO_TOASTS: ToastItem[] = [];
