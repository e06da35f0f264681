@extends('layouts.base')
@section('title', __('account.title'))
@section('content')
<h1>{{ __('account.title') }}</h1>
<dl>
  <dt>{{ __('account.email') }}</dt><dd id="email">{{ $user->email }}</dd>
  <dt>{{ __('account.name') }}</dt><dd>{{ $user->name }}</dd>
</dl>
@endsection
