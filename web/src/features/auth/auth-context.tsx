import { useMutation, useQuery, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { LanguageSync } from './language-sync';
import { loginRequest, logoutRequest, registerRequest, USER_QUERY_KEY, userQuery, type LoginInput, type RegisterInput, type User } from './api';

interface AuthContextValue {
  user: User | null;
  isLoading: boolean;
  loginMutation: UseMutationResult<User, Error, LoginInput>;
  registerMutation: UseMutationResult<User, Error, RegisterInput>;
  logoutMutation: UseMutationResult<unknown, Error, void>;
}

const AuthContext = createContext<AuthContextValue | null>(null);

/** Session state (spec §4): signed in when the session probe returns a user; null or any failure means signed out. */
export function AuthProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const query = useQuery(userQuery());
  // Signed in or registered: the user is the session state. A probe sent before the cookie existed (the page had just
  // loaded) must not answer "signed out" after. The sign-in page moves on when this state has the user (AuthRoute).
  const signedIn = async (user: User) => {
    await qc.cancelQueries({ queryKey: USER_QUERY_KEY });
    qc.setQueryData(USER_QUERY_KEY, user);
  };
  const loginMutation = useMutation({ mutationFn: loginRequest, onSuccess: signedIn });
  const registerMutation = useMutation({ mutationFn: registerRequest, onSuccess: signedIn });
  const logoutMutation = useMutation({
    mutationFn: logoutRequest,
    onSuccess: () => {
      // Logout clears the user and every cached answer.
      qc.clear();
      qc.setQueryData(USER_QUERY_KEY, null);
    },
  });
  const value: AuthContextValue = {
    user: query.isError ? null : (query.data ?? null),
    isLoading: query.isLoading,
    loginMutation,
    registerMutation,
    logoutMutation,
  };
  return (
    <AuthContext.Provider value={value}>
      <LanguageSync user={value.user} />
      {children}
    </AuthContext.Provider>
  );
}

export function useAuth(): AuthContextValue {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth must be used within an AuthProvider');
  return ctx;
}
