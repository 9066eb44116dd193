import type { User } from '../../auth/api';
import { cn } from '../../../lib/cn';
import { initials } from '../display-name';

/** The user's picture, or their initials on a brand-coloured disc. Decorative: the name is always shown beside it. */
export function ProfileAvatar({ user, className }: { user: User; className?: string }) {
  return user.profileImageUrl ? (
    <img src={user.profileImageUrl} alt="" className={cn('shrink-0 rounded-full object-cover', className)} />
  ) : (
    <span
      aria-hidden
      className={cn(
        'flex shrink-0 select-none items-center justify-center rounded-full bg-gradient-to-br from-brand-500 to-brand-700 font-semibold text-white',
        className,
      )}
    >
      {initials(user)}
    </span>
  );
}
