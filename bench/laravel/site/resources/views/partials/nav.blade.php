<header>
  <nav>
    <a href="/">{{ __('nav.home') }}</a>
    <a href="/contact">{{ __('nav.contact') }}</a>
    <a href="/csp">{{ __('nav.csp') }}</a>
    @auth
      <a href="/account" id="nav-account">{{ __('nav.account') }}</a>
      <form method="post" action="/logout" class="inline">
        @csrf
        <button type="submit" id="logout">{{ __('nav.logout') }}</button>
      </form>
    @else
      <a href="/login" id="nav-login">{{ __('nav.login') }}</a>
    @endauth
  </nav>
  @php($next = rawurlencode(request()->getRequestUri()))
  <nav aria-label="{{ __('nav.language') }}" class="languages">
    <a href="/lang?lang=en&next={{ $next }}" hreflang="en" id="lang-en">English</a>
    <a href="/lang?lang=fr&next={{ $next }}" hreflang="fr" id="lang-fr">Français</a>
    <a href="/lang?lang=de&next={{ $next }}" hreflang="de" id="lang-de">Deutsch</a>
  </nav>
</header>
