/** The signed-in user, as GET /api/auth/user (and GET /api/auth/session's `user`) answers it. */
export interface User {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  phoneNumber: string | null;
  profileImageUrl: string | null;
  country: string | null;
  address: { line1: string | null; city: string | null; state: string | null; postal_code: string | null; country: string };
  role: 'user' | 'merchant' | 'admin';
  isKycVerified: boolean;
  twoFactorEnabled: boolean;
  loginNotifications: boolean;
  createdAt: string;
}

export interface LoginInput {
  email: string;
  password: string;
  totpCode?: string;
}
export interface RegisterInput {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}
