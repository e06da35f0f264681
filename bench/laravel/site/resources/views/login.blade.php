@extends('layouts.base')
@section('title', __('login.title'))
@section('content')
<h1>{{ __('login.title') }}</h1>
@if ($error)<p class="error" id="login-error" role="alert">{{ $error }}</p>@endif
<form method="post" action="/login" id="login-form">
  @csrf
  <label>{{ __('login.email') }} <input type="email" name="email" value="{{ $email }}" autocomplete="username" required></label>
  <label>{{ __('login.password') }} <input type="password" name="password" autocomplete="current-password" required></label>
  <button type="submit">{{ __('login.submit') }}</button>
</form>
<p class="hint">{{ __('login.hint') }}</p>
@endsection
