@foreach (['success', 'error'] as $kind)@if (session()->has($kind))<p class="flash flash-{{ $kind }}" role="status">{{ session($kind) }}</p>
@endif @endforeach
