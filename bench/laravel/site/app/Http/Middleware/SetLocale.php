<?php

namespace App\Http\Middleware;

use Closure;

// SetLocale picks the request's language as Plinth's Locales middleware
// does: ?lang=, then the "lang" cookie, then Accept-Language, among the
// site's languages (the first one by default).
class SetLocale
{
    private const SUPPORTED = ['en', 'fr', 'de'];

    public function handle($request, Closure $next)
    {
        $lang = $request->query('lang');
        if (! in_array($lang, self::SUPPORTED, true)) {
            $lang = $request->cookies->get('lang');
            if (! in_array($lang, self::SUPPORTED, true)) {
                $lang = $request->getPreferredLanguage(self::SUPPORTED);
            }
        }
        app()->setLocale($lang);
        $response = $next($request);
        $response->headers->set('Vary', 'Accept-Language, Cookie', false);

        return $response;
    }
}
