<!doctype html>
<html lang="{{ app()->getLocale() }}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="csrf-token" content="{{ csrf_token() }}">
  <title>@yield('title', __('site.name')) · {{ __('site.name') }}</title>
  <link rel="stylesheet" href="/static/site.css">
</head>
<body>
  @include('partials.nav')
  <main>
    @include('partials.flashes')
    @yield('content')
  </main>
</body>
</html>
