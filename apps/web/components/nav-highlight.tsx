"use client";
import { createContext, useContext, useEffect } from "react";

/** Lets a page tell the sidebar which entry it sits under (a job page: "My jobs" or "Live queue"). */
export const NavHighlight = createContext<(href: string | null) => void>(() => undefined);

export function useNavHighlight(href: string | null): void {
  const set = useContext(NavHighlight);
  useEffect(() => {
    set(href);
    return () => set(null);
  }, [href, set]);
}
