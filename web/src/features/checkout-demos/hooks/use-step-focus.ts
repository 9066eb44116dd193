import { useEffect, useRef } from 'react';
import { focusStepOf, focusTargetOf, type Phase } from '../flow';

/**
 * Moves the keyboard focus to the new step's heading whenever the flow changes step (not on the first render: a
 * page that just opened keeps the browser's focus). A 3-D Secure prompt is left to its code field, which focuses
 * itself as it mounts. `heading` returns the element for the phase, or null when it is not mounted yet (the
 * Customer Demo's overlay focuses its title itself as it opens).
 */
export function useStepFocus(phase: Phase, heading: (phase: Phase) => HTMLElement | null): void {
  const step = focusStepOf(phase);
  const last = useRef(step);
  useEffect(() => {
    if (last.current === step) return;
    last.current = step;
    if (focusTargetOf(phase) === 'code') return;
    heading(phase)?.focus();
    // The effect runs once per step; the phase and the getter of that render are the ones that count.
  }, [step]);
}
