@extends('layouts.base')
@section('title', __('home.title'))
@section('content')
<h1>{{ __('home.title') }}</h1>
<p>{{ __('home.intro') }}</p>
@auth<p id="who">{{ __('home.signed_in', ['email' => auth()->user()->email]) }}</p>@else<p id="who">{{ __('home.signed_out') }}</p>@endauth
@endsection
