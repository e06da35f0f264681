<?php

namespace App\Http\Middleware;

use Illuminate\Cookie\Middleware\EncryptCookies as Middleware;

class EncryptCookies extends Middleware
{
    // The language switch's cookie is a plain choice, as in the Plinth site.
    protected $except = ['lang'];
}
