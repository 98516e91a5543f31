import { Component, Fragment, lazy, Suspense, type ErrorInfo, type ReactNode } from 'react';
import { BrowserRouter, Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { ErrorBanner } from './components/common';
import { OrganizationSwitcher } from './components/OrganizationSwitcher';
import { InvitationLinkWatcher } from './organization/InvitationLinkWatcher';
import { INVITATION_PATH } from './organization/invitation-token';
import { OrganizationProvider, useOrganization } from './organization/OrganizationProvider';
import { InvitationPage } from './pages/InvitationPage';
import { BillingPage } from './pages/BillingPage';
import { KeysPage } from './pages/KeysPage';
import { OperatorPage } from './pages/OperatorPage';
import { OrganizationPage } from './pages/OrganizationPage';
import { OverviewPage } from './pages/OverviewPage';
import { PlaygroundPage } from './pages/PlaygroundPage';
import { SignInPage } from './pages/SignInPage';
import { TasksPage } from './pages/TasksPage';
import { SessionProvider, useSession } from './session';

export const BASENAME = '/dashboard';

/** The usage page carries the charting library (Recharts): loaded when it is first opened, so the other pages stay light. */
const UsagePage = lazy(() => import('./pages/UsagePage').then((m) => ({ default: m.UsagePage })));

/** Never a blank page: a rendering error is shown with its message. */
class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }
  override render() {
    if (this.state.error) {
      return (
        <main className="container">
          <h1>Something went wrong</h1>
          <ErrorBanner error={this.state.error} />
          <button type="button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </main>
      );
    }
    return this.props.children;
  }
}

function Shell({ children }: { children: ReactNode }) {
  const { session, signOut } = useSession();
  const { capabilities } = useOrganization();
  const operator = session?.user.role === 'operator';
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="container">
        <nav aria-label="Main">
          <ul>
            <li>
              <strong className="brand">gengate</strong>
            </li>
          </ul>
          {session && (
            <ul className="nav-links">
              <li><NavLink to="/" end>Overview</NavLink></li>
              <li><NavLink to="/playground">Playground</NavLink></li>
              <li><NavLink to="/tasks">Tasks</NavLink></li>
              <li><NavLink to="/usage">Usage</NavLink></li>
              <li><NavLink to="/keys">API keys</NavLink></li>
              {capabilities.billing && <li><NavLink to="/billing">Billing</NavLink></li>}
              <li><NavLink to="/organization">Organization</NavLink></li>
              {operator && <li><NavLink to="/operator">Operator</NavLink></li>}
              <li>
                <button type="button" className="secondary outline small" onClick={() => void signOut()}>
                  Sign out
                </button>
              </li>
            </ul>
          )}
        </nav>
        {session && (
          <div className="row header-meta">
            <p className="signed-in-as">Signed in as <strong>{session.user.email}</strong>{operator ? ' (operator)' : ''}</p>
            <OrganizationSwitcher />
          </div>
        )}
      </header>
      <main id="main" className="container" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function RequireSession({ children }: { children: ReactNode }) {
  const { session, loadError } = useSession();
  const { ready, current } = useOrganization();
  const location = useLocation();
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  if (!session) {
    if (loadError) return <ErrorBanner error={loadError} />;
    return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
  }
  // The pages' requests name the organization: they wait until it is known.
  if (!ready) return <p aria-busy="true">Loading…</p>;
  // Switching organization mounts the page afresh: it loads its data for the new one. (Only the pages
  // that need a session: the sign-in page keeps its state while the organizations load.)
  return <Fragment key={current?.id ?? 'none'}>{children}</Fragment>;
}

function Pages() {
  const guarded = (el: ReactNode) => <RequireSession>{el}</RequireSession>;
  return (
    <Shell>
      <InvitationLinkWatcher basename={BASENAME} />
      <Routes>
        <Route path="/sign-in" element={<SignInPage />} />
        <Route path="/" element={guarded(<OverviewPage />)} />
        <Route path="/playground" element={guarded(<PlaygroundPage />)} />
        <Route path="/tasks" element={guarded(<TasksPage />)} />
        <Route path="/usage" element={guarded(<Suspense fallback={<p aria-busy="true">Loading the charts…</p>}><UsagePage /></Suspense>)} />
        <Route path="/keys" element={guarded(<KeysPage />)} />
        <Route path="/billing" element={guarded(<BillingPage />)} />
        <Route path="/operator" element={guarded(<OperatorPage />)} />
        <Route path="/organization" element={guarded(<OrganizationPage />)} />
        <Route path={INVITATION_PATH} element={guarded(<InvitationPage />)} />
        <Route path="*" element={<p>No such page. <NavLink to="/">Go to the overview</NavLink>.</p>} />
      </Routes>
    </Shell>
  );
}

export function App() {
  return (
    <ErrorBoundary>
      <BrowserRouter basename={BASENAME}>
        <SessionProvider>
          <OrganizationProvider>
            <Pages />
          </OrganizationProvider>
        </SessionProvider>
      </BrowserRouter>
    </ErrorBoundary>
  );
}
