import { ChevronDown, CreditCard, Languages, LogOut, UserRound } from 'lucide-react';
import { Link, useLocation } from 'wouter';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../../../components/ui/dropdown-menu';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { Tooltip, TooltipContent, TooltipTrigger } from '../../../components/ui/tooltip';
import { useLanguage, useT } from '../../../i18n';
import type { User } from '../../auth/api';
import { useDemoMode } from '../../demo-mode/demo-mode';
import { ProfileAvatar } from '../../profile/components/profile-avatar';
import { displayName } from '../../profile/display-name';
import { BrandMark } from '../../../components/ui/brand-mark';
import { NotificationBell } from '../../notifications/components/notification-bell';

function DemoSwitch() {
  const t = useT();
  const { isDemoMode, setDemoMode } = useDemoMode();
  const hint = isDemoMode ? t('dashboard.demo.tooltipOn') : t('dashboard.demo.tooltipOff');
  return (
    <div className="flex items-center gap-2">
      <Tooltip>
        {/* The trigger is a wrapper: as the Switch itself, the tooltip's data-state would replace the switch's. */}
        <TooltipTrigger asChild>
          <span className="inline-flex">
            <Switch
              id="demo-mode-switch"
              data-testid="demo-switch"
              checked={isDemoMode}
              onCheckedChange={setDemoMode}
              aria-describedby="demo-mode-hint"
            />
          </span>
        </TooltipTrigger>
        <TooltipContent data-testid="demo-switch-tooltip">{hint}</TooltipContent>
      </Tooltip>
      <span id="demo-mode-hint" className="sr-only">
        {hint}
      </span>
      <Label htmlFor="demo-mode-switch" className="cursor-pointer">
        {t('dashboard.demo.label')}
      </Label>
    </div>
  );
}

function ProfileMenu({ user, onViewProfile }: { user: User; onViewProfile(): void }) {
  const { t, lang, setLanguage } = useLanguage();
  const [, navigate] = useLocation();
  const name = displayName(user, t('dashboard.userFallback'));
  return (
    <DropdownMenu>
      <DropdownMenuTrigger
        className="flex items-center gap-2 rounded-full p-1 pe-2 text-sm font-medium text-slate-700 hover:bg-slate-100 data-[state=open]:bg-slate-100"
        data-testid="profile-menu"
        aria-label={t('dashboard.menu.open', { name })}
      >
        <ProfileAvatar user={user} className="h-8 w-8 text-xs" />
        <span className="hidden max-w-[10rem] truncate sm:inline">{name}</span>
        <ChevronDown className="h-4 w-4 text-slate-400" aria-hidden />
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-60">
        <DropdownMenuLabel className="space-y-0.5">
          <span className="block">{t('dashboard.menu.signedInAs')}</span>
          <span
            className="block truncate text-sm font-medium text-slate-900"
            dir="ltr"
            data-testid="profile-menu-email"
          >
            {user.email}
          </span>
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={onViewProfile} data-testid="view-profile">
          <UserRound className="h-4 w-4 text-slate-500" aria-hidden />
          {t('dashboard.menu.viewProfile')}
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => navigate('/plans')} data-testid="menu-plans">
          <CreditCard className="h-4 w-4 text-slate-500" aria-hidden />
          {t('dashboard.menu.plans')}
        </DropdownMenuItem>
        <DropdownMenuItem
          onSelect={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
          lang={lang === 'ar' ? 'en' : 'ar'}
          data-testid="language-switch"
        >
          <Languages className="h-4 w-4 text-slate-500" aria-hidden />
          {t('common.language.switch')}
        </DropdownMenuItem>
        <DropdownMenuSeparator />
        <DropdownMenuItem
          onSelect={() => navigate('/auth/logout')}
          className="text-red-600 data-[highlighted]:bg-red-50"
          data-testid="logout"
        >
          <LogOut className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
          {t('dashboard.menu.logout')}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

/** Logo, the Demo switch, the notifications bell and the profile menu (spec §2, Consumer dashboard; issue 25). */
export function DashboardHeader({ user, onViewProfile }: { user: User; onViewProfile(): void }) {
  const t = useT();
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <Link href="/" className="flex items-center gap-2 rounded-md" aria-label={t('dashboard.home')}>
          <BrandMark />
        </Link>
        <div className="flex items-center gap-2 sm:gap-4">
          <DemoSwitch />
          <NotificationBell />
          <ProfileMenu user={user} onViewProfile={onViewProfile} />
        </div>
      </div>
    </header>
  );
}
