<?php

namespace App\Providers;

use App\Auth\SeededUserProvider;
use Illuminate\Support\Facades\Auth;
use Illuminate\Support\ServiceProvider;

class AuthServiceProvider extends ServiceProvider
{
    public function boot()
    {
        Auth::provider('seeded', function ($app, array $config) {
            return new SeededUserProvider($app['hash'], $config['file']);
        });
    }
}
