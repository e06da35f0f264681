<?php

namespace App\Http\Controllers;

use Illuminate\Http\Request;
use Illuminate\Routing\Controller;
use Illuminate\Support\Facades\Auth;
use Illuminate\Support\Facades\RateLimiter;
use Illuminate\Support\Str;

// SiteController is examples/web's routes that the benchmark measures,
// written as a Laravel developer would (Breeze's sign-in, minus its
// FormRequest validation: the Plinth site does not validate the form either).
class SiteController extends Controller
{
    public function hello()
    {
        return response('Hello, World!', 200, ['Content-Type' => 'text/plain; charset=utf-8']);
    }

    public function home()
    {
        return view('home');
    }

    public function loginForm()
    {
        if (Auth::check()) {
            return redirect('/account', 303);
        }

        return view('login', ['email' => '', 'error' => null]);
    }

    // login: throttled per account and client (5 failures a minute, as
    // Plinth's Auth.Throttle), then the password check; a match signs in
    // (Auth::attempt migrates the session to a new ID), renews the CSRF
    // token (Plinth's Auth.Login renews its CSRF secret), flashes a welcome
    // and redirects to the account page.
    public function login(Request $request)
    {
        $email = (string) $request->input('email', '');
        $key = Str::lower(trim($email)).'|'.$request->ip();
        if (RateLimiter::tooManyAttempts($key, 5)) {
            abort(429, 'too many failed sign-in attempts; try again later', ['Retry-After' => RateLimiter::availableIn($key)]);
        }
        if (! Auth::attempt(['email' => $email, 'password' => (string) $request->input('password', '')])) {
            RateLimiter::hit($key, 60);

            return view('login', ['email' => $email, 'error' => __('login.failed')]);
        }
        RateLimiter::clear($key);
        $request->session()->regenerateToken();
        $request->session()->flash('success', __('login.welcome', ['name' => Auth::user()->name]));

        return redirect('/account', 303);
    }

    public function logout(Request $request)
    {
        Auth::logout();
        $request->session()->invalidate();
        $request->session()->regenerateToken();

        return redirect('/', 303);
    }

    public function account()
    {
        return view('account', ['user' => Auth::user()]);
    }
}
